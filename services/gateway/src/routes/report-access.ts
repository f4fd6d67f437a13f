import { requirePermission } from '../middleware/authenticate.js';

/**
 * A report's documents hold every record of its project and period: making one (now or on a
 * schedule) or downloading one needs what reading that data directly needs, project:read and
 * data:read, besides the report permission (membership of the project is checked by the reports
 * service for every report route).
 */
export const readsTheData = [requirePermission('project:read'), requirePermission('data:read')];
