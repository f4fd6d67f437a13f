export { runOperatorCommand, USAGE, UsageError } from './commands.js';
export { loadOperatorCredential, type OperatorCredential } from './credential.js';
