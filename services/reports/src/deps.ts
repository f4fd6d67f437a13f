import type { Database } from '@mp/db';
import type { OutboxRelay } from '@mp/events';
import type { Clock, Logger } from '@mp/kit';
import type { ReportSources } from './sources.js';

/** What every use case of the reports service is given. */
export interface ReportsDeps {
  db: Database;
  relay: Pick<OutboxRelay, 'kick'>;
  logger: Logger;
  clock: Clock;
  /** The projects and monitoring-data services, read as the report's requester. */
  sources: ReportSources;
  /** Wakes the generation worker after a report was committed as `generating`. */
  wakeWorker(): void;
}
