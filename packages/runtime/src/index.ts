export * from './infra-config.js';
export * from './open.js';
