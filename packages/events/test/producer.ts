import { createPgDatabase, migrate, type Database, type Migration } from '@mp/db';
import { NatsTransport, outboxMigrations } from '@mp/events';
import { createLogger } from '@mp/kit';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@mp/testing';

export const logger = createLogger('test', 'silent');

/** A producing service's side of the events, for the relay's tests: its database with an outbox, a stream, and a NATS transport. */
export interface TestProducer {
  db: Database;
  stream: TestStream;
  transport: NatsTransport;
  close(): Promise<void>;
}

export async function startTestProducer(extraMigrations: Migration[] = []): Promise<TestProducer> {
  const tdb: TestDatabase = await createTestDatabase();
  const stream = createTestStream();
  const db = createPgDatabase({ url: tdb.url, schema: 'producer' });
  await migrate(db, 'producer', [...outboxMigrations, ...extraMigrations]);
  const transport = await NatsTransport.connect({ url: stream.url, stream: stream.stream, subjectPrefix: stream.subjectPrefix, logger });
  return {
    db,
    stream,
    transport,
    async close() {
      await transport.close();
      await db.close();
      await tdb.drop();
      await stream.drop();
    },
  };
}
