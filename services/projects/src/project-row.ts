import type { projects } from '@mp/contracts';

export interface ProjectRow {
  id: string;
  tenant_id: string;
  environment: string;
  number: string;
  name: string;
  description: string | null;
  status: string;
  start_date: string | null;
  end_date: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export const PROJECT_COLUMNS = 'id, tenant_id, environment, number, name, description, status, start_date, end_date, created_at, updated_at, version';

export function toProject(row: ProjectRow): projects.Project {
  return {
    id: row.id,
    number: row.number,
    name: row.name,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.start_date !== null ? { startDate: row.start_date } : {}),
    ...(row.end_date !== null ? { endDate: row.end_date } : {}),
  };
}
