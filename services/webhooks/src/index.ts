export { startWebhooksService, type WebhooksServiceOptions, type RunningWebhooksService } from './service.js';
export { migrations as webhooksMigrations, SCHEMA as WEBHOOKS_SCHEMA } from './migrations.js';
export { notificationOptions, parseWebhooksConfig, type WebhooksConfig } from './config.js';
export { AckLinkSigner } from './notifications/ack-link.js';
export { signPayload, verifySignature } from './delivery/sign.js';
export { webhooksOptionsFrom, openWebhooksDatabase, type WebhooksInfra, type WebhooksInOneProcess } from './compose.js';
