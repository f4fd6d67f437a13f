// The entry for browsers and other fetch runtimes (`@mp/sdk/browser`): no Node built-in is
// imported anywhere below it, so a bundler (the console's Vite build) takes it as it is. The
// client's default transport here is globalThis.fetch; webhook verification (node:crypto) is in
// the Node entry only, since webhooks are received by servers.
export { MonitoringPlatform, type ClientOptions, type ItemOf, type ListRoute, type RequestArgs, type RouteName, type SessionHook } from './client.js';
export { ApiError, TransportError, WebhookVerificationError, type ErrorEnvelope } from './errors.js';
export { fetchTransport } from './fetch-transport.js';
export type { RawAnswer, SendOptions, Transport } from './transport.js';
export * from './generated.js';
