export * from './data-dir.js';
export * from './infra-config.js';
export * from './open.js';
export * from './reseal.js';
export * from './reseal-main.js';
export * from './migrate-main.js';
