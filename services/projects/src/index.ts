export { startProjectsService, type ProjectsServiceOptions, type RunningService } from './service.js';
export { migrations as projectsMigrations, SCHEMA as PROJECTS_SCHEMA } from './migrations.js';
export { parseProjectsConfig, type ProjectsConfig } from './config.js';
