export * from './database.js';
export * from './nats.js';
export * from './https.js';
export * from './wait.js';
export * from './grpc-clients.js';
export * from './contract.js';
export * from './log-lines.js';
export * from './plans.js';
