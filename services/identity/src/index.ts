export { startIdentityService, type IdentityServiceOptions, type IdentityServiceConfig, type RunningIdentityService } from './service.js';
export { migrations as identityMigrations, SCHEMA as IDENTITY_SCHEMA } from './migrations.js';
export { parseIdentityConfig, identityConfigSchema, type IdentityConfig } from './config.js';
export { describeFirstAdmin, ensureFirstAdmin, type FirstAdmin } from './bootstrap.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { ALL_PERMISSIONS, type Permission } from './permissions.js';
export { API_KEY_PREFIXES, API_KEY_PATTERN } from './api-key-value.js';
export { FEATURES, DEFAULT_PLAN, type Feature } from './plans.js';
export { maskPhone } from './phone.js';
