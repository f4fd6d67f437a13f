import type { Database } from '@mp/db';
import type { OutboxRelay } from '@mp/events';
import type { Clock, Logger } from '@mp/kit';

/** What every use case of the projects service is given. */
export interface ProjectsDeps {
  db: Database;
  relay: Pick<OutboxRelay, 'kick'>;
  logger: Logger;
  clock: Clock;
}
