import type { Database } from '@mp/db';
import type { OutboxRelay } from '@mp/events';
import type { Clock, Logger } from '@mp/kit';
import type { IngestVersionTarget } from './ingest-version.js';

/** What every use case of the projects service is given. */
export interface ProjectsDeps {
  db: Database;
  relay: Pick<OutboxRelay, 'kick'>;
  logger: Logger;
  clock: Clock;
  /** Hands a project's new ingest version to monitoring-data inside the change's transaction. */
  ingestVersions: Pick<IngestVersionTarget, 'bump' | 'scheduleRecompute'>;
}
