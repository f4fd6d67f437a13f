import type { Database } from '@mp/db';
import type { Clock, Logger, SecretBox } from '@mp/kit';

export interface SenderSettings {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Trusted CAs for receivers: the system roots plus NODE_EXTRA_CA_CERTS. */
  ca?: string[];
}

/** What every use case of the webhooks service is given. */
export interface WebhooksDeps {
  db: Database;
  logger: Logger;
  clock: Clock;
  secrets: SecretBox;
  sender: SenderSettings;
  /** Wakes the delivery worker after new deliveries were committed. */
  wakeWorker(): void;
}
