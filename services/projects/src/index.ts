export { startProjectsService, type ProjectsServiceOptions, type RunningService } from './service.js';
export { migrations as projectsMigrations, SCHEMA as PROJECTS_SCHEMA } from './migrations.js';
export { parseProjectsConfig, type ProjectsConfig } from './config.js';
export { PROJECT_STATUSES, PROJECT_TRANSITIONS, TASK_STATUSES, TASK_TRANSITIONS } from './transitions.js';
export { SENSOR_TYPES } from './point-row.js';
export { DEVICE_STATUSES, DEVICE_TYPES } from './device-row.js';
export { ROLES } from './access.js';
export { projectsOptionsFrom, openProjectsDatabase, type ProjectsInfra, type ProjectsInOneProcess } from './compose.js';
