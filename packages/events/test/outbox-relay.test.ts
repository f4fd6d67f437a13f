import { createPgDatabase, createPgliteDatabase, migrate, type Database } from '@mp/db';
import {
  appendEvent,
  dataJsonOf,
  decodeEnvelope,
  encodeEnvelope,
  MemoryTransport,
  NatsTransport,
  OutboxRelay,
  outboxMigration,
  outboxMigrations,
  outboxTextMigration,
  outgoing,
  type DomainEvent,
  type ReceivedEvent,
} from '@mp/events';
import { createTestDatabase, waitUntil, type TestDatabase, type TestStream } from '@mp/testing';
import { logger, startTestProducer, type TestProducer } from './producer.js';

describe('transactional outbox and relay (real PostgreSQL and NATS JetStream)', () => {
  let producer: TestProducer;
  let stream: TestStream;
  let db: Database;
  let transport: NatsTransport;

  beforeAll(async () => {
    producer = await startTestProducer([{ id: '001_things', sql: 'CREATE TABLE things (id text PRIMARY KEY)' }]);
    ({ stream, db, transport } = producer);
  });
  afterAll(async () => producer?.close());

  const write = (id: string, fail = false) =>
    db.transaction(async (tx) => {
      await tx.query('INSERT INTO things (id) VALUES ($1)', [id]);
      const e = await appendEvent(tx, { type: 'project.created', tenantId: 'ten_1', environment: 'live', data: { project_id: id } });
      if (fail) throw new Error('boom after the event was written');
      return e;
    });

  /**
   * The marker that a subscriber would have had back anything it gave back: one more event, which
   * `handled` fails on its first delivery, written and relayed. Every event given back earlier was
   * nak'd earlier with the same delay and has a lower stream sequence, so it comes back first; once
   * the marker came back twice, nothing earlier is still on its way.
   */
  const redeliveryMarker = () => {
    let id: string | null = null;
    let failed = false;
    return {
      /** Throws for the marker's first delivery; call it last in a handler. */
      handled(event: DomainEvent) {
        if (event.event_id !== id || failed) return;
        failed = true;
        throw new Error('the marker fails once');
      },
      async send(project: string) {
        const e = await write(project);
        id = e.event_id;
        await new OutboxRelay({ db, transport, logger }).drain();
        return e.event_id;
      },
    };
  };

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
    expect((await db.query('SELECT * FROM outbox WHERE data::json->>$1 = $2', ['project_id', 'c'])).rows).toHaveLength(0);
    expect((await db.query("SELECT * FROM things WHERE id = 'c'")).rows).toHaveLength(0);
  });

  it('stores an event once when a crash made the relay publish it twice', async () => {
    const e = await write('d');
    // The previous relay published but died before marking the row.
    await transport.publish(outgoing({ ...e, data: { project_id: 'd' } }));
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

  it('passes pre-serialised data through the outbox and the stream byte for byte', async () => {
    // Key order and number spelling as the producer wrote them (not what a parse + stringify gives).
    const dataJson = '{"z":1.50,"a":[1e3,"é ✓"],"project_id":"raw"}';
    const e = await db.transaction((tx) => appendEvent(tx, { type: 'data.created', tenantId: 'ten_1', environment: 'live', dataJson }));
    await new OutboxRelay({ db, transport, logger }).drain();
    const received: ReceivedEvent[] = [];
    const sub = await transport.subscribe('raw-consumer', async (event) => void received.push(event as ReceivedEvent));
    await waitUntil(() => received.some((r) => r.event_id === e.event_id), { timeoutMs: 10_000 });
    await sub.stop();
    const got = received.find((r) => r.event_id === e.event_id)!;
    // its size is known before the data is decoded (here, after the message was acknowledged)
    expect(got.dataSize).toBe(Buffer.byteLength(dataJson));
    expect(got.dataJson).toBe(dataJson);
    expect(dataJsonOf(got)).toBe(dataJson);
    expect({ ...got }).toEqual({ ...e, data: { z: 1.5, a: [1000, 'é ✓'], project_id: 'raw' } });
    const onWire = (await stream.messages()).find((m) => m.msgId === e.event_id)!;
    expect(onWire.data).toEqual({ ...e, data: { z: 1.5, a: [1000, 'é ✓'], project_id: 'raw' } });
  });

  it('hands a subscriber with concurrency several events at once, and acknowledges each', async () => {
    for (const id of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']) await write(id);
    await new OutboxRelay({ db, transport, logger }).drain();
    const total = (await stream.messages()).length;
    let inFlight = 0;
    let most = 0;
    const seen: string[] = [];
    const marker = redeliveryMarker();
    const sub = await transport.subscribe(
      'concurrent-consumer',
      async (event) => {
        inFlight++;
        most = Math.max(most, inFlight);
        // Each handler takes a while, so the consumer has to hand out several at once.
        await new Promise((r) => setTimeout(r, 50));
        seen.push(event.event_id);
        inFlight--;
        marker.handled(event);
      },
      { concurrency: 4 },
    );
    await waitUntil(() => seen.length >= total, { timeoutMs: 10_000 });
    // Nothing comes back after the acks (ack wait would have to pass first; a nak comes back after the retry delay).
    const markerId = await marker.send('c-marker');
    await waitUntil(() => seen.filter((id) => id === markerId).length === 2, { timeoutMs: 10_000 });
    await sub.stop();
    expect(most).toBe(4);
    const events = seen.filter((id) => id !== markerId);
    expect(events).toHaveLength(total);
    expect(new Set(events).size).toBe(total);
  });

  it('redelivers to a durable consumer whose handler failed, and not after an ack', async () => {
    const seen: string[] = [];
    let failOnce = true;
    const marker = redeliveryMarker();
    const sub = await transport.subscribe('test-consumer', async (event: DomainEvent) => {
      seen.push(event.event_id);
      if (failOnce && event.data.project_id === 'a') {
        failOnce = false;
        throw new Error('handler failed');
      }
      marker.handled(event);
    });
    const all = await stream.messages();
    await waitUntil(() => seen.length >= all.length + 1, { timeoutMs: 10_000 });
    const markerId = await marker.send('r-marker');
    await waitUntil(() => seen.filter((id) => id === markerId).length === 2, { timeoutMs: 10_000 });
    await sub.stop();
    const events = seen.filter((id) => id !== markerId);
    const first = all[0]!.msgId!;
    expect(events.filter((id) => id === first)).toHaveLength(2);
    expect(new Set(events).size).toBe(all.length);
    expect(events.length).toBe(all.length + 1);
  });
  it('deletes published events once past the retention, never pending or recent ones', async () => {
    const old = await write('old');
    const recent = await write('recent');
    await new OutboxRelay({ db, transport, logger }).drain();
    const pending = await write('pending');
    await db.query(`UPDATE outbox SET dispatched_at = now() - interval '25 hours' WHERE event_id = $1`, [old.event_id]);
    const relay = new OutboxRelay({ db, transport, logger, retentionMs: 24 * 3600_000 });
    expect(await relay.purge()).toBe(1);
    const { rows } = await db.query<{ event_id: string }>('SELECT event_id FROM outbox WHERE event_id = ANY($1) ORDER BY seq', [
      [old.event_id, recent.event_id, pending.event_id],
    ]);
    expect(rows.map((r) => r.event_id)).toEqual([recent.event_id, pending.event_id]);
    expect(await relay.purge()).toBe(0);
  });

  it('purges on its own while it runs', async () => {
    const e = await write('purged');
    const relay = new OutboxRelay({ db, transport, logger, pollIntervalMs: 20, retentionMs: 0, purgeEveryMs: 20 });
    relay.start();
    try {
      await waitUntil(async () => (await db.query('SELECT 1 FROM outbox WHERE event_id = $1', [e.event_id])).rowCount === 0, { timeoutMs: 10_000 });
    } finally {
      await relay.stop();
    }
    // published before it was deleted
    expect((await stream.messages()).filter((m) => m.msgId === e.event_id)).toHaveLength(1);
  });

  it('keeps publishing at its pace when the purge fails, and says so', async () => {
    // A trigger makes every DELETE on the outbox fail, as a lost permission or a lock timeout would.
    await db.query(`CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no deletes here'; END $$`);
    await db.query('CREATE TRIGGER refuse_delete BEFORE DELETE ON outbox FOR EACH ROW EXECUTE FUNCTION refuse_delete()');
    const warnings: string[] = [];
    const watched = Object.assign(Object.create(logger) as typeof logger, { warn: (_obj: unknown, msg: string) => void warnings.push(msg) });
    const relay = new OutboxRelay({ db, transport, logger: watched, pollIntervalMs: 20, retentionMs: 0, purgeEveryMs: 20 });
    relay.start();
    try {
      const published = await write('published');
      await waitUntil(() => warnings.filter((w) => w === 'outbox purge failed; will try again').length >= 5, { timeoutMs: 10_000 });
      // purges keep failing every 20 ms; a relay backing off after five failures would wait 640 ms and more
      const later = await write('later');
      await waitUntil(async () => (await db.query('SELECT 1 FROM outbox WHERE event_id = $1 AND dispatched_at IS NOT NULL', [later.event_id])).rowCount === 1, {
        timeoutMs: 2_000,
      });
      const ids = (await stream.messages()).map((m) => m.msgId);
      expect(ids).toEqual(expect.arrayContaining([published.event_id, later.event_id]));
      // both rows stay: the purge never deleted anything
      expect((await db.query('SELECT 1 FROM outbox WHERE event_id = ANY($1)', [[published.event_id, later.event_id]])).rowCount).toBe(2);
      expect(warnings).not.toContain('outbox relay could not publish; will retry');
    } finally {
      await relay.stop();
      await db.query('DROP TRIGGER refuse_delete ON outbox');
      await db.query('DROP FUNCTION refuse_delete()');
    }
  });
});

describe('event envelope', () => {
  const event: DomainEvent = {
    event_id: 'evt_9',
    event_type: 'data.created',
    tenant_id: 'ten_ü',
    environment: 'sandbox',
    occurred_at: '2026-01-01T00:00:00.000Z',
    data: { n: 1, s: 'ü' },
  };

  it('reads the metadata without the data, and the data when it is asked for', () => {
    const { body, dataOffset } = encodeEnvelope(outgoing(event));
    expect(JSON.parse(body.toString('utf8'))).toEqual(event);
    const got = decodeEnvelope(Buffer.from(body), dataOffset);
    expect(got.dataJson).toBe('{"n":1,"s":"ü"}');
    expect(got.event_type).toBe('data.created');
    expect(got.data).toEqual({ n: 1, s: 'ü' });
    expect(JSON.parse(JSON.stringify(got))).toEqual(event);
  });

  it('parses the whole body when the offset is missing or does not point at the data', () => {
    const { body, dataOffset } = encodeEnvelope(outgoing(event));
    expect({ ...decodeEnvelope(Buffer.from(body), null) }).toEqual(event);
    expect({ ...decodeEnvelope(Buffer.from(body), dataOffset - 3) }).toEqual(event);
    expect({ ...decodeEnvelope(Buffer.from(JSON.stringify(event)), null) }).toEqual(event);
  });
});

describe('in-process transport (embedded default)', () => {
  it('refuses to publish before a consumer subscribed, so the outbox keeps the event', async () => {
    const t = new MemoryTransport();
    const event: DomainEvent = {
      event_id: 'evt_1',
      event_type: 'project.created',
      tenant_id: 't',
      environment: 'live',
      occurred_at: new Date().toISOString(),
      data: {},
    };
    await expect(t.publish(outgoing(event))).rejects.toThrow(/no event consumer/);
  });

  it('resolves publish only after the handler took the event, and de-duplicates by event_id', async () => {
    const t = new MemoryTransport();
    const taken: string[] = [];
    await t.subscribe('webhooks', async (e) => {
      // The handler takes a while, so a publish that resolved on hand-over, before the handler, would show.
      await new Promise((r) => setTimeout(r, 20));
      taken.push(e.event_id);
    });
    const event: DomainEvent = {
      event_id: 'evt_2',
      event_type: 'project.created',
      tenant_id: 't',
      environment: 'live',
      occurred_at: new Date().toISOString(),
      data: {},
    };
    await t.publish(outgoing(event));
    expect(taken).toEqual(['evt_2']);
    await t.publish(outgoing(event));
    expect(taken).toEqual(['evt_2']);
  });

  it('makes publish fail when the handler fails, so the relay retries', async () => {
    const t = new MemoryTransport();
    await t.subscribe('webhooks', async () => {
      throw new Error('database down');
    });
    await expect(
      t.publish(outgoing({ event_id: 'evt_3', event_type: 'project.created', tenant_id: 't', environment: 'live', occurred_at: '', data: {} })),
    ).rejects.toThrow('database down');
  });
});

describe('outbox migrations', () => {
  let tdb: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    db = createPgDatabase({ url: tdb.url, schema: 'older' });
  });
  afterAll(async () => {
    await db?.close();
    await tdb?.drop();
  });

  it('turns an outbox made with json data into lz4-compressed text, keeping pending events byte for byte', async () => {
    // An outbox as '000_outbox' made it before the text change: data json.
    await migrate(db, 'older', [outboxMigration]);
    await db.exec('ALTER TABLE outbox ALTER COLUMN data TYPE json USING data::json');
    const written = '{"project_id":"prj_1","n":1.50,"name":"Süd"}';
    await db.query(
      `INSERT INTO outbox (event_id, event_type, tenant_id, environment, occurred_at, data) VALUES ('evt_1', 'project.created', 'ten_1', 'live', now(), $1)`,
      [written],
    );

    expect(await migrate(db, 'older', [outboxMigration, outboxTextMigration])).toEqual(['000_outbox_text']);
    const { rows } = await db.query<{ type: string; storage: string; compression: string; data: string }>(
      `SELECT format_type(a.atttypid, a.atttypmod) AS type, a.attstorage AS storage, a.attcompression AS compression, (SELECT data FROM outbox WHERE event_id = 'evt_1') AS data
         FROM pg_attribute a WHERE a.attrelid = 'older.outbox'::regclass AND a.attname = 'data'`,
    );
    // extended storage (compressed, out of line when still large), lz4
    expect(rows).toEqual([{ type: 'text', storage: 'x', compression: 'l', data: written }]);
    // a large payload goes in compressed and comes back whole
    const large = JSON.stringify({ records: Array.from({ length: 1000 }, (_, i) => ({ data_id: `dat_${i}`, values: { x: 3512345.101 + i, dz: i / 7 } })) });
    await db.query(
      `INSERT INTO outbox (event_id, event_type, tenant_id, environment, occurred_at, data) VALUES ('evt_2', 'data.created', 'ten_1', 'live', now(), $1)`,
      [large],
    );
    const stored = await db.query<{ data: string; method: string; bytes: number }>(
      `SELECT data, pg_column_compression(data) AS method, pg_column_size(data) AS bytes FROM outbox WHERE event_id = 'evt_2'`,
    );
    expect(stored.rows[0]!.data).toBe(large);
    expect(stored.rows[0]!.method).toBe('lz4');
    expect(stored.rows[0]!.bytes).toBeLessThan(large.length / 3);
  });

  it('keeps payloads uncompressed on a server without lz4 (PGlite, the embedded default)', async () => {
    const lite = await createPgliteDatabase({ dataDir: 'memory://', schema: 'lite' });
    try {
      expect(await migrate(lite, 'lite', outboxMigrations)).toEqual(['000_outbox', '000_outbox_text']);
      const { rows } = await lite.query(`SELECT attstorage AS storage FROM pg_attribute WHERE attrelid = 'lite.outbox'::regclass AND attname = 'data'`);
      expect(rows).toEqual([{ storage: 'e' }]);
    } finally {
      await lite.close();
    }
  });
});
