export * from './types.js';
export * from './pg.js';
export * from './pglite.js';
export * from './migrate.js';
export * from './async-commit.js';
