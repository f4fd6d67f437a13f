export * from './rules.js';
export * from './rate-limits.js';
export * from './refuse.js';
export * from './auth-versions.js';
