import type { Database } from '@mp/db';
import { appendEvent, OutboxRelay, type NatsTransport, type ReceivedEvent } from '@mp/events';
import { waitUntil, type TestStream } from '@mp/testing';
import { logger, startTestProducer, type TestProducer } from './producer.js';

// A producer hands the data it has just committed to its relay (kick(events)): the relay publishes
// it from memory, and its claim leaves that data in the table. To prove the claim did not read it,
// these tests hand over text that differs from the stored row (a real producer hands over exactly
// what it stored): whichever text is published tells where it came from.

describe('outbox relay with data handed over (real PostgreSQL and NATS JetStream)', () => {
  let producer: TestProducer;
  let stream: TestStream;
  let db: Database;
  let transport: NatsTransport;

  beforeAll(async () => {
    producer = await startTestProducer();
    ({ stream, db, transport } = producer);
  });
  afterAll(async () => producer?.close());

  /** Commits an event whose stored data is `{"stored":<tag>}`, given as UTF-8 bytes. */
  const commit = (tag: string) =>
    db.transaction((tx) =>
      appendEvent(tx, { type: 'data.created', tenantId: 'ten_1', environment: 'live', dataJson: Buffer.from(JSON.stringify({ stored: tag })) }),
    );
  const published = async (eventId: string) => (await stream.messages()).find((m) => m.msgId === eventId)?.data as ReceivedEvent | undefined;
  const pending = async () => Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE dispatched_at IS NULL')).rows[0]!.n);

  it('stores data given as bytes as its text', async () => {
    const e = await commit('bytes ü');
    const { rows } = await db.query<{ data: string }>('SELECT data FROM outbox WHERE event_id = $1', [e.event_id]);
    expect(rows[0]!.data).toBe('{"stored":"bytes ü"}');
    await new OutboxRelay({ db, transport, logger }).drain();
  });

  it('publishes handed-over data from memory, leaves the stored data unread, and lets go of it once marked', async () => {
    const relay = new OutboxRelay({ db, transport, logger, pollIntervalMs: 60_000 });
    try {
      const handed = await commit('a');
      const other = await commit('b');
      // `other` was written by another replica: nothing handed over for it (handed over before
      // the relay runs, so that no poll of its own claims the rows first)
      relay.kick([{ eventId: handed.event_id, dataJson: Buffer.from('{"handed":"a"}') }]);
      expect(relay.heldCount).toBe(1);
      relay.start();
      await waitUntil(async () => (await pending()) === 0, { timeoutMs: 10_000 });
      expect((await published(handed.event_id))!.data).toEqual({ handed: 'a' });
      expect((await published(other.event_id))!.data).toEqual({ stored: 'b' });
      expect(relay.heldCount).toBe(0);
    } finally {
      await relay.stop();
    }
  });

  it('holds no more than heldBytesMax: beyond it the data is read back from the table', async () => {
    const relay = new OutboxRelay({ db, transport, logger, heldBytesMax: 20 });
    const small = await commit('small');
    const large = await commit('large');
    relay.kick([
      { eventId: small.event_id, dataJson: '{"handed":"small"}' },
      { eventId: large.event_id, dataJson: `{"handed":"${'x'.repeat(100)}"}` },
    ]);
    expect(relay.heldCount).toBe(1);
    await relay.drain();
    expect((await published(small.event_id))!.data).toEqual({ handed: 'small' });
    expect((await published(large.event_id))!.data).toEqual({ stored: 'large' });
  });

  it('lets go of data its claims did not take in time (another replica published the row)', async () => {
    const relay = new OutboxRelay({ db, transport, logger, heldMaxAgeMs: 1 });
    const e = await commit('late');
    relay.kick([{ eventId: e.event_id, dataJson: '{"handed":"late"}' }]);
    // Ages the handed data past heldMaxAgeMs (1 ms) before the claim: the condition under test, not a wait for an absence.
    await new Promise((r) => setTimeout(r, 20));
    await relay.drain();
    expect(relay.heldCount).toBe(0);
    expect((await published(e.event_id))!.data).toEqual({ stored: 'late' });
  });

  it('lets go at once of data whose row another replica published (a claim short of a full batch saw every pending row)', async () => {
    const mine = new OutboxRelay({ db, transport, logger });
    const other = new OutboxRelay({ db, transport, logger });
    const e = await commit('taken');
    mine.kick([{ eventId: e.event_id, dataJson: '{"handed":"taken"}' }]);
    await other.drain();
    expect((await published(e.event_id))!.data).toEqual({ stored: 'taken' });
    expect(mine.heldCount).toBe(1);
    expect(await mine.drain()).toBe(0);
    expect(mine.heldCount).toBe(0);
  });

  it('keeps handed-over data for the retry when publishing failed', async () => {
    const failing = {
      messagingAttributes: transport.messagingAttributes.bind(transport),
      publish: async () => Promise.reject(new Error('NATS is down')),
      subscribe: transport.subscribe.bind(transport),
      close: async () => undefined,
    };
    const relay = new OutboxRelay({ db, transport: failing, logger });
    const e = await commit('retry');
    relay.kick([{ eventId: e.event_id, dataJson: '{"handed":"retry"}' }]);
    await expect(relay.drain()).rejects.toThrow('NATS is down');
    expect(relay.heldCount).toBe(1);
    expect(await pending()).toBe(1);
    // a relay that has the transport back publishes the held data
    await relay.stop();
    const again = new OutboxRelay({ db, transport, logger });
    again.kick([{ eventId: e.event_id, dataJson: '{"handed":"retry"}' }]);
    await again.drain();
    expect((await published(e.event_id))!.data).toEqual({ handed: 'retry' });
  });
});
