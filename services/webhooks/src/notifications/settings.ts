import type { monitoringData, projects } from '@mp/contracts';
import type { Database } from '@mp/db';
import type { PromiseClient } from '@mp/grpc';
import type { Clock, Logger } from '@mp/kit';
import type { AckLinkSigner } from './ack-link.js';
import type { Mailer } from '@mp/mail';

/** The gateway's public base URLs (…/v3), where a mail's links point. */
export interface PublicUrls {
  live: string;
  sandbox: string;
}

/** The services notifications ask: projects (the rule maker's access), monitoring-data (acknowledge links). */
export interface NotificationSources {
  projects: Pick<PromiseClient<projects.ProjectsServer>, 'getProject' | 'getProjectAccess'>;
  data: Pick<PromiseClient<monitoringData.MonitoringDataServer>, 'acknowledgeAlarmAsRecipient'>;
  close(): void;
}

/** How notifications behave (MP_NOTIFY_*; ADR 0090). */
export interface NotificationSettings {
  /** The shortest reminder interval and escalation delay a rule may have. */
  minIntervalSeconds: number;
  /** How long an acknowledge link works. */
  ackLinkMs: number;
  maxAttempts: number;
  /** Wait before the first retry; each later one waits four times longer. */
  retryBaseMs: number;
  /** Mails held by one sender for this long without an outcome go to another (a crashed replica). */
  leaseMs: number;
}

/** What every notification use case is given. */
export interface NotificationDeps {
  db: Database;
  logger: Logger;
  clock: Clock;
  mailer: Mailer;
  links: AckLinkSigner;
  /** Resolved when first needed: in one process the gateway's port is known only after it started. */
  publicUrls: () => PublicUrls;
  sources: () => NotificationSources;
  settings: NotificationSettings;
  /** Wakes the sender after mails were committed. */
  wake(): void;
}
