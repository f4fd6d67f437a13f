export { startWebhooksService, readExtraCa, type WebhooksServiceOptions, type RunningWebhooksService } from './service.js';
export { migrations as webhooksMigrations, SCHEMA as WEBHOOKS_SCHEMA } from './migrations.js';
export { parseWebhooksConfig, type WebhooksConfig } from './config.js';
export { signPayload, verifySignature } from './delivery/sign.js';
