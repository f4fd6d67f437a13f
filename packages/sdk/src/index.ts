// The Node entry (`@mp/sdk`): everything of the browser entry, with node:https as the client's
// default transport (so `ca` works for a private deployment) and webhook verification.
import { MonitoringPlatform as FetchClient, type ClientOptions } from './client.js';
import { nodeTransport } from './node-transport.js';

export * from './browser.js';
export { nodeTransport } from './node-transport.js';
export { verifyWebhook, type WebhookEvent, type WebhookEventType, type WebhookEvents } from './webhooks.js';

/** The client of the API v3 (see client.ts); in Node it travels over node:https unless `transport` says otherwise. */
export class MonitoringPlatform extends FetchClient {
  constructor(opts: ClientOptions) {
    super({ ...opts, transport: opts.transport ?? nodeTransport });
  }
}
