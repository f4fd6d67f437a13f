export * from './types.js';
export { isUniqueViolation } from './errors.js';
export { arrayParam, ArrayParam, type ArrayElementType } from './array-param.js';
export { bufferOf, utf8Param, Utf8Param } from './params.js';
export * from './pg.js';
export * from './pglite.js';
export * from './migrate.js';
export * from './idempotency.js';
export * from './async-commit.js';
