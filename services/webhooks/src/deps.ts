import type tls from 'node:tls';
import type { Dispatcher } from 'undici';
import type { Database } from '@mp/db';
import type { Clock, Logger } from '@mp/kit';
import type { WebhookSecrets } from './delivery/opened-secrets.js';
import type { WebhookMetrics } from './metrics.js';

export interface SenderSettings {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Trusted CAs for receivers (the system roots plus NODE_EXTRA_CA_CERTS), built once. */
  secureContext?: tls.SecureContext;
  /** Keep-alive connection pool shared by every attempt of this service (holds its own address guard). */
  agent?: Dispatcher;
}

/** What every use case of the webhooks service is given. */
export interface WebhooksDeps {
  db: Database;
  logger: Logger;
  clock: Clock;
  secrets: WebhookSecrets;
  sender: SenderSettings;
  metrics: WebhookMetrics;
  /** Wakes the delivery worker after new deliveries were committed or made due. */
  wakeWorker(): void;
}
