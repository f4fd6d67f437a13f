export { MonitoringPlatform, type ClientOptions, type ItemOf, type ListRoute, type RequestArgs, type RouteName } from './client.js';
export { ApiError, TransportError, WebhookVerificationError, type ErrorEnvelope } from './errors.js';
export { verifyWebhook, type WebhookEvent } from './webhooks.js';
export * from './generated.js';
