import { createPgDatabase, migrate, type Database } from '@mp/db';
import { appendEvent, MemoryTransport, NatsTransport, OutboxRelay, outboxMigration, type DomainEvent } from '@mp/events';
import { createLogger } from '@mp/kit';
import { createTestDatabase, createTestStream, waitUntil, type TestDatabase, type TestStream } from '@mp/testing';

const logger = createLogger('test', 'silent');

describe('transactional outbox and relay (real PostgreSQL and NATS JetStream)', () => {
  let tdb: TestDatabase;
  let stream: TestStream;
  let db: Database;
  let transport: NatsTransport;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    stream = createTestStream();
    db = createPgDatabase({ url: tdb.url, schema: 'producer' });
    await migrate(db, 'producer', [outboxMigration, { id: '001_things', sql: 'CREATE TABLE things (id text PRIMARY KEY)' }]);
    transport = await NatsTransport.connect({ url: stream.url, stream: stream.stream, subjectPrefix: stream.subjectPrefix, logger });
  });
  afterAll(async () => {
    await transport?.close();
    await db?.close();
    await tdb?.drop();
    await stream?.drop();
  });

  const write = (id: string, fail = false) =>
    db.transaction(async (tx) => {
      await tx.query('INSERT INTO things (id) VALUES ($1)', [id]);
      const e = await appendEvent(tx, { type: 'project.created', tenantId: 'ten_1', environment: 'live', data: { project_id: id } });
      if (fail) throw new Error('boom after the event was written');
      return e;
    });

  it('publishes committed events with Nats-Msg-Id = event_id and marks them dispatched', async () => {
    const e1 = await write('a');
    const e2 = await write('b');
    const relay = new OutboxRelay({ db, transport, logger });
    expect(await relay.drain()).toBe(2);
    const msgs = await stream.messages();
    expect(msgs.map((m) => m.msgId)).toEqual([e1.event_id, e2.event_id]);
    expect(msgs[0]!.data).toMatchObject({ event_type: 'project.created', tenant_id: 'ten_1', environment: 'live', data: { project_id: 'a' } });
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE dispatched_at IS NULL');
    expect(rows[0]!.n).toBe(0);
  });

  it('writes no event when the transaction rolls back', async () => {
    await expect(write('c', true)).rejects.toThrow('boom');
    expect((await db.query('SELECT * FROM outbox WHERE data->>$1 = $2', ['project_id', 'c'])).rows).toHaveLength(0);
    expect((await db.query("SELECT * FROM things WHERE id = 'c'")).rows).toHaveLength(0);
  });

  it('stores an event once when a crash made the relay publish it twice', async () => {
    const e = await write('d');
    // The previous relay published but died before marking the row.
    await transport.publish({ event_id: e.event_id, event_type: e.event_type, tenant_id: 'ten_1', environment: 'live', occurred_at: e.occurred_at, data: e.data });
    const before = (await stream.messages()).length;
    await new OutboxRelay({ db, transport, logger }).drain();
    const after = await stream.messages();
    expect(after.length).toBe(before);
    expect(after.filter((m) => m.msgId === e.event_id)).toHaveLength(1);
  });

  it('publishes rows left pending by a stopped relay when a new one starts', async () => {
    const e = await write('e');
    const relay = new OutboxRelay({ db, transport, logger, pollIntervalMs: 50 });
    relay.start();
    await waitUntil(async () => (await stream.messages()).some((m) => m.msgId === e.event_id));
    await relay.stop();
    const { rows } = await db.query<{ dispatched: boolean }>('SELECT dispatched_at IS NOT NULL AS dispatched FROM outbox WHERE event_id = $1', [e.event_id]);
    expect(rows[0]!.dispatched).toBe(true);
  });

  it('redelivers to a durable consumer whose handler failed, and not after an ack', async () => {
    const seen: string[] = [];
    let failOnce = true;
    const sub = await transport.subscribe('test-consumer', async (event: DomainEvent) => {
      seen.push(event.event_id);
      if (failOnce && event.data.project_id === 'a') {
        failOnce = false;
        throw new Error('handler failed');
      }
    });
    const all = await stream.messages();
    await waitUntil(() => seen.length >= all.length + 1, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    await sub.stop();
    const first = all[0]!.msgId!;
    expect(seen.filter((id) => id === first)).toHaveLength(2);
    expect(new Set(seen).size).toBe(all.length);
    expect(seen.length).toBe(all.length + 1);
  });
});

describe('in-process transport (embedded default)', () => {
  it('refuses to publish before a consumer subscribed, so the outbox keeps the event', async () => {
    const t = new MemoryTransport();
    const event: DomainEvent = { event_id: 'evt_1', event_type: 'project.created', tenant_id: 't', environment: 'live', occurred_at: new Date().toISOString(), data: {} };
    await expect(t.publish(event)).rejects.toThrow(/no event consumer/);
  });

  it('resolves publish only after the handler took the event, and de-duplicates by event_id', async () => {
    const t = new MemoryTransport();
    const taken: string[] = [];
    await t.subscribe('webhooks', async (e) => {
      await new Promise((r) => setTimeout(r, 20));
      taken.push(e.event_id);
    });
    const event: DomainEvent = { event_id: 'evt_2', event_type: 'project.created', tenant_id: 't', environment: 'live', occurred_at: new Date().toISOString(), data: {} };
    await t.publish(event);
    expect(taken).toEqual(['evt_2']);
    await t.publish(event);
    expect(taken).toEqual(['evt_2']);
  });

  it('makes publish fail when the handler fails, so the relay retries', async () => {
    const t = new MemoryTransport();
    await t.subscribe('webhooks', async () => {
      throw new Error('database down');
    });
    await expect(t.publish({ event_id: 'evt_3', event_type: 'project.created', tenant_id: 't', environment: 'live', occurred_at: '', data: {} })).rejects.toThrow('database down');
  });
});
