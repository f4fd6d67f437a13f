export * from './catalogue.js';
export * from './payloads.js';
export * from './envelope.js';
export * from './transport.js';
export * from './outbox.js';
export * from './relay.js';
export * from './nats-transport.js';
export * from './memory-transport.js';
