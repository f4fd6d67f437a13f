import type { Database } from '@mp/db';
import type { OutboxRelay } from '@mp/events';
import type { Clock, Logger } from '@mp/kit';
import type { IngestContexts } from './ingest-context.js';
import type { Partitions } from './partitions.js';
import type { KnownPoints } from './known-points.js';
import type { ProjectAccess } from './project-access.js';
import type { AlarmSettings } from './alarms/settings.js';

/** What every use case of the monitoring-data service is given. */
export interface DataDeps {
  db: Database;
  relay: Pick<OutboxRelay, 'kick'>;
  logger: Logger;
  clock: Clock;
  contexts: IngestContexts;
  /** Which projects a caller reads, for answers that span projects (the alarm inbox, project lists). */
  access: ProjectAccess;
  partitions: Partitions;
  knownPoints: KnownPoints;
  /** Wakes this replica's batch worker after a batch was stored. */
  wakeBatches: () => void;
  batchChunk: number;
  /** How alarms are raised and cleared (docs/adr/0024-alarms.md). */
  alarms: AlarmSettings;
}
