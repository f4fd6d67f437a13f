import { appendEvent, NatsTransport, OutboxRelay, outgoing, type DomainEvent } from '@mp/events';
import { newId } from '@mp/kit';
import { logger, startTestProducer, type TestProducer } from './producer.js';

// The relay hands each claim to the transport as one batch (ADR 0101): on JetStream the messages go
// out back to back and their acknowledgements come back on one subscription. The batch must keep
// what a publish per event promised: every event stored once, in order, with Nats-Msg-Id =
// event_id, the envelope whole; resolved only once all are stored; rejected when one is not, with
// the rows left pending for the next claim.

const event = (n: number): DomainEvent => ({
  event_id: newId('event'),
  event_type: n % 2 ? 'project.created' : 'task.created',
  tenant_id: 'ten_1',
  environment: 'live',
  occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  data: { project_id: `prj_${n}`, n, text: 'Tunnel ü ✓' },
});

describe('NATS transport: a batch of publishes (real NATS JetStream)', () => {
  let producer: TestProducer;

  beforeAll(async () => {
    producer = await startTestProducer();
  });
  afterAll(async () => producer?.close());

  it('stores every event of a batch once, in order, with its id and envelope; the same batch again stores nothing more', async () => {
    const events = Array.from({ length: 60 }, (_, i) => event(i));
    await producer.transport.publishBatch(events.map(outgoing));
    const stored = await producer.stream.messages();
    expect(stored.map((m) => m.msgId)).toEqual(events.map((e) => e.event_id));
    expect(stored.map((m) => m.subject)).toEqual(events.map((e) => `${producer.stream.subjectPrefix}.${e.event_type}`));
    expect(stored[7]!.data).toEqual({
      event_id: events[7]!.event_id,
      event_type: 'project.created',
      tenant_id: 'ten_1',
      environment: 'live',
      occurred_at: events[7]!.occurred_at,
      data: { project_id: 'prj_7', n: 7, text: 'Tunnel ü ✓' },
    });

    // a relay that crashed before marking publishes the claim again: JetStream keeps one copy
    await producer.transport.publishBatch(events.map(outgoing));
    expect((await producer.stream.messages()).length).toBe(60);
  });

  it('rejects a batch JetStream does not take, and the relay leaves its rows pending', async () => {
    // Same stream, another subject prefix: no stream captures these subjects (NATS answers 503).
    const stray = await NatsTransport.connect({
      url: producer.stream.url,
      stream: producer.stream.stream,
      subjectPrefix: `${producer.stream.subjectPrefix}_elsewhere`,
      logger,
    });
    try {
      await expect(stray.publishBatch([event(1), event(2), event(3)].map(outgoing))).rejects.toThrow(/JetStream refused event/);
      const ids = await producer.db.transaction(async (tx) => {
        const a = await appendEvent(tx, { type: 'project.created', tenantId: 'ten_1', environment: 'live', data: { project_id: 'prj_a' } });
        const b = await appendEvent(tx, { type: 'project.created', tenantId: 'ten_1', environment: 'live', data: { project_id: 'prj_b' } });
        return [a.event_id, b.event_id];
      });
      const relay = new OutboxRelay({ db: producer.db, transport: stray, logger });
      await expect(relay.drain()).rejects.toThrow(/JetStream refused event/);
      const { rows } = await producer.db.query<{ event_id: string }>('SELECT event_id FROM outbox WHERE dispatched_at IS NULL ORDER BY seq');
      expect(rows.map((r) => r.event_id)).toEqual(ids);
      const before = (await producer.stream.messages()).length;

      // the next relay, on the right subjects, publishes both in order
      expect(await new OutboxRelay({ db: producer.db, transport: producer.transport, logger }).drain()).toBe(2);
      expect((await producer.stream.messages()).slice(before).map((m) => m.msgId)).toEqual(ids);
    } finally {
      await stray.close();
    }
  });
});
