export * from './types.js';
export * from './domain-error.js';
export { catalogue, errorCodes } from './catalogue/index.js';
export { excerpt, EXCERPT_LENGTH } from './excerpt.js';
export { unexpectedError } from './unexpected.js';
