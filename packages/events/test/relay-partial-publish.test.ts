import type { Database } from '@mp/db';
import { appendEvents, OutboxRelay, type DomainEvent, type NatsTransport } from '@mp/events';
import { waitUntil, type TestStream } from '@mp/testing';
import { connect, type NatsConnection } from 'nats';
import { logger, startTestProducer, type TestProducer } from './producer.js';

// The relay sends a claimed batch to JetStream with every publish in flight at once and marks only
// what the stream acknowledged (ADR 0128). Here the stream refuses one subject in the middle of a
// batch (its subjects narrowed to project.*, so the alarm event in the middle finds no stream and
// the server answers 503): the pass must mark the others, leave exactly that event pending with its
// handed-over data, and the next pass must publish it once, with nothing lost or doubled for a
// consumer.

describe('outbox relay publishing a batch with a failure in the middle (real PostgreSQL and NATS JetStream)', () => {
  let producer: TestProducer;
  let stream: TestStream;
  let db: Database;
  let transport: NatsTransport;
  let nc: NatsConnection;

  beforeAll(async () => {
    producer = await startTestProducer();
    ({ stream, db, transport } = producer);
    nc = await connect({ servers: stream.url });
  });
  afterAll(async () => {
    await nc?.close();
    await producer?.close();
  });

  /** Which subjects the stream takes: everything of the test's prefix, or only project events. */
  const streamTakes = async (subjects: string[]) => {
    const jsm = await nc.jetstreamManager();
    const { config } = await jsm.streams.info(stream.stream);
    await jsm.streams.update(stream.stream, { ...config, subjects });
  };
  const pendingIds = async () =>
    (await db.query<{ event_id: string }>('SELECT event_id FROM outbox WHERE dispatched_at IS NULL ORDER BY seq')).rows.map((r) => r.event_id);

  it('marks the events the stream took, leaves the refused one pending, and publishes it once on the next pass', async () => {
    const received: string[] = [];
    const subscription = await transport.subscribe('partial-batch', async (event: DomainEvent) => {
      received.push(event.event_id);
    });
    try {
      // seven events in one transaction: the fourth is the only one of a subject the stream will refuse
      const types = ['project.created', 'project.created', 'project.created', 'alarm.opened', 'project.created', 'project.created', 'project.created'] as const;
      const metas = await db.transaction((tx) =>
        appendEvents(
          tx,
          types.map((type, i) => ({ type, tenantId: 'ten_1', environment: 'live' as const, data: { n: i } })),
        ),
      );
      const ids = metas.map((m) => m.event_id);
      const refused = ids[3]!;
      const relay = new OutboxRelay({ db, transport, logger });
      // the producer hands over what it committed: what is not published must stay held for the retry
      relay.kick(metas.map((m, i) => ({ eventId: m.event_id, dataJson: JSON.stringify({ n: i }) })));

      await streamTakes([`${stream.subjectPrefix}.project.>`]);
      await expect(relay.drain()).rejects.toThrow('1 of 7 events were not published: JetStream refused the event: 503');
      expect(await pendingIds()).toEqual([refused]);
      expect(relay.heldCount).toBe(1);
      // stored in the order sent, the refused one missing
      expect((await stream.messages()).map((m) => m.msgId)).toEqual(ids.filter((id) => id !== refused));

      await streamTakes([`${stream.subjectPrefix}.>`]);
      expect(await relay.drain()).toBe(1);
      expect(await pendingIds()).toEqual([]);
      expect(relay.heldCount).toBe(0);
      const stored = await stream.messages();
      expect(stored.map((m) => m.msgId)).toEqual([...ids.filter((id) => id !== refused), refused]);
      expect(stored[6]!.data).toMatchObject({ event_id: refused, event_type: 'alarm.opened', data: { n: 3 } });

      // A marker after them: the consumer takes the stream in order, one at a time, so once the
      // marker arrived anything stored before it (a double included) has arrived too.
      const [marker] = await db.transaction((tx) =>
        appendEvents(tx, [{ type: 'project.created', tenantId: 'ten_1', environment: 'live', data: { marker: true } }]),
      );
      await relay.drain();
      await waitUntil(() => received.includes(marker!.event_id));
      expect(received.filter((id) => id !== marker!.event_id).sort()).toEqual([...ids].sort());
    } finally {
      await subscription.stop();
    }
  });

  it('publishes a large claim as one batch, in order, and marks all of it', async () => {
    const metas = await db.transaction((tx) =>
      appendEvents(
        tx,
        Array.from({ length: 450 }, (_, i) => ({ type: 'project.created' as const, tenantId: 'ten_1', environment: 'live' as const, data: { n: i } })),
      ),
    );
    const before = (await stream.messages()).length;
    expect(await new OutboxRelay({ db, transport, logger, batchSize: 200 }).drain()).toBe(450);
    expect(await pendingIds()).toEqual([]);
    const after = (await stream.messages()).slice(before);
    expect(after.map((m) => m.msgId)).toEqual(metas.map((m) => m.event_id));
  });
});
