export * from './config.js';
export * from './logger.js';
export * from './ids.js';
export * from './secrets.js';
export * from './tls.js';
export * from './time.js';
export * from './pagination.js';
export * from './shutdown.js';
