import { connect, headers, type NatsConnection } from 'nats';
import { dataAtHand, encodeEnvelope, INLINE_DATA_MAX_BYTES, loadEventData, NatsTransport, outgoing, type DomainEvent, type ReceivedEvent } from '@mp/events';
import { createLogger, newId } from '@mp/kit';
import { createTestStream, waitUntil, type TestStream } from '@mp/testing';

// A consumer with data on demand (the webhooks service's) gets each event's metadata from its
// headers, and its data with it only when small: a large body is read from the stream by direct
// get when the handler asks, and never otherwise. The direct gets are watched on the wire: every
// such request is a message on $JS.API.DIRECT.GET.<stream>, which a plain subscription sees too.

const logger = createLogger('test', 'silent');

const event = (type: DomainEvent['event_type'], data: Record<string, unknown>): DomainEvent => ({
  event_id: newId('event'),
  event_type: type,
  tenant_id: 'ten_1',
  environment: 'live',
  occurred_at: new Date().toISOString(),
  data,
});

/** data.created-like data of about `bytes` bytes of JSON, with text that is not ASCII. */
const largeData = (bytes: number) => ({
  project_id: 'prj_1',
  project_name: 'Tunnel ü ✓ "quoted"',
  records: Array.from({ length: Math.ceil(bytes / 60) }, (_, i) => ({ data_id: `dat_${i}`, status: 'normal', values: { dz: i / 7 } })),
});

describe('NATS transport: data on demand (real NATS JetStream)', () => {
  let stream: TestStream;
  let transport: NatsTransport;
  let nc: NatsConnection;
  /** Sequences asked for by direct get, in order. */
  const directGets: number[] = [];

  beforeAll(async () => {
    stream = createTestStream();
    transport = await NatsTransport.connect({ url: stream.url, stream: stream.stream, subjectPrefix: stream.subjectPrefix, logger });
    nc = await connect({ servers: stream.url });
    const watch = nc.subscribe(`$JS.API.DIRECT.GET.${stream.stream}`);
    void (async () => {
      for await (const m of watch) directGets.push((m.json() as { seq: number }).seq);
    })();
    await nc.flush();
  });
  afterAll(async () => {
    await transport?.close();
    await nc?.close();
    await stream?.drop();
  });

  const seqOf = async (eventId: string) => {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(stream.stream);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(stream.stream, { seq });
      if (m.header?.get('Nats-Msg-Id') === eventId) return { seq, headers: m.header };
    }
    throw new Error(`event ${eventId} is not in the stream`);
  };

  const collect = async (durable: string, until: (got: ReceivedEvent[]) => boolean, dataOnDemand = true) => {
    const got: ReceivedEvent[] = [];
    const sub = await transport.subscribe(durable, async (e) => void got.push(e as ReceivedEvent), { dataOnDemand });
    await waitUntil(() => until(got), { timeoutMs: 10_000 });
    await sub.stop();
    return got;
  };

  it('publishes the metadata in Mp-Event, and the data in Mp-Data only when it is small', async () => {
    const small = event('project.created', { project_id: 'prj_1', project_name: 'Tunnel ü' });
    const large = event('data.created', largeData(20_000));
    await transport.publish(outgoing(small));
    await transport.publish(outgoing(large));
    const s = await seqOf(small.event_id);
    const l = await seqOf(large.event_id);
    expect(JSON.parse(s.headers.get('Mp-Event'))).toEqual({ ...small, data: undefined });
    expect(JSON.parse(l.headers.get('Mp-Event'))).toEqual({ ...large, data: undefined });
    expect(s.headers.get('Mp-Data')).toBe(JSON.stringify(small.data));
    expect(l.headers.has('Mp-Data')).toBe(false);
    // the body is the whole envelope as before, for every other reader of the stream
    const messages = await stream.messages();
    expect(messages.find((m) => m.msgId === large.event_id)!.data).toEqual(large);
  });

  it('sends data given as UTF-8 bytes exactly as the same data given as text', async () => {
    for (const data of [{ small: 'Süd ✓' }, largeData(30_000)]) {
      const asText = event('data.updated', data);
      const asBytes = { ...asText, event_id: newId('event') };
      await transport.publish(outgoing(asText));
      await transport.publish({ ...outgoing(asBytes), dataJson: Buffer.from(JSON.stringify(data)) });
      const t = await seqOf(asText.event_id);
      const b = await seqOf(asBytes.event_id);
      expect(b.headers.get('Mp-Data')).toBe(t.headers.get('Mp-Data'));
      expect(b.headers.get('Mp-Data-Offset')).toBe(t.headers.get('Mp-Data-Offset'));
      const bodies = (await stream.messages()).filter((m) => m.msgId === asText.event_id || m.msgId === asBytes.event_id).map((m) => m.data);
      expect(bodies).toEqual([asText, asBytes]);
    }
  });

  it('hands small events over whole and large ones as metadata, fetching the data only when asked', async () => {
    const small = event('task.created', { task_id: 'tsk_1', note: 'é "x"\n' });
    const edge = event('data.updated', { blob: 'a'.repeat(INLINE_DATA_MAX_BYTES - 11) });
    const large = event('data.created', largeData(50_000));
    for (const e of [small, edge, large]) await transport.publish(outgoing(e));
    expect(JSON.stringify(edge.data)).toHaveLength(INLINE_DATA_MAX_BYTES);
    const gets = directGets.length;
    const got = await collect('on-demand', (g) => g.some((e) => e.event_id === large.event_id));
    const bySmall = got.find((e) => e.event_id === small.event_id)!;
    const byEdge = got.find((e) => e.event_id === edge.event_id)!;
    const byLarge = got.find((e) => e.event_id === large.event_id)!;
    expect(dataAtHand(bySmall)).toBe(true);
    expect({ ...bySmall }).toEqual(small);
    expect(bySmall.dataJson).toBe(JSON.stringify(small.data));
    expect(dataAtHand(byEdge)).toBe(true);
    expect(byEdge.data).toEqual(edge.data);
    // the large one: metadata only, and its size known (the body's)
    expect(dataAtHand(byLarge)).toBe(false);
    expect(byLarge.dataSize).toBe(Buffer.byteLength(encodeEnvelope(outgoing(large)).body));
    expect(() => byLarge.dataJson).toThrow(/loadEventData/);
    expect(directGets.length).toBe(gets);
    await loadEventData(byLarge);
    await loadEventData(byLarge);
    const { seq } = await seqOf(large.event_id);
    await waitUntil(() => directGets.length > gets, { timeoutMs: 5_000 });
    expect(directGets.slice(gets)).toEqual([seq]);
    expect(byLarge.dataJson).toBe(JSON.stringify(large.data));
    expect({ ...byLarge }).toEqual(large);
  });

  it('reads a message from a producer that sent no metadata header whole, at once', async () => {
    const old = event('project.created', { project_id: 'prj_old' });
    const h = headers();
    h.set('Mp-Data-Offset', String(encodeEnvelope(outgoing(old)).dataOffset));
    await nc
      .jetstream()
      .publish(`${stream.subjectPrefix}.project.created`, Buffer.from(encodeEnvelope(outgoing(old)).body), { msgID: old.event_id, headers: h });
    const gets = directGets.length;
    const got = await collect('old-producer', (g) => g.some((e) => e.event_id === old.event_id));
    const byOld = got.find((e) => e.event_id === old.event_id)!;
    expect(dataAtHand(byOld)).toBe(true);
    expect({ ...byOld }).toEqual(old);
    // headers only came, without the metadata: the body was read from the stream
    expect(directGets.slice(gets)).toContain((await seqOf(old.event_id)).seq);
  });

  it('switches a durable made without data on demand in place, keeping its position', async () => {
    const first = event('project.created', { project_id: 'prj_first' });
    await transport.publish(outgoing(first));
    const before = await collect('switching', (g) => g.some((e) => e.event_id === first.event_id), false);
    expect(before.every((e) => dataAtHand(e))).toBe(true);
    const jsm = await nc.jetstreamManager();
    expect((await jsm.consumers.info(stream.stream, 'switching')).config.headers_only ?? false).toBe(false);
    const second = event('data.created', largeData(10_000));
    await transport.publish(outgoing(second));
    const after = await collect('switching', (g) => g.some((e) => e.event_id === second.event_id));
    expect((await jsm.consumers.info(stream.stream, 'switching')).config.headers_only).toBe(true);
    // nothing acknowledged before comes again; the new event comes as metadata
    expect(after.map((e) => e.event_id)).toEqual([second.event_id]);
    expect(dataAtHand(after[0]!)).toBe(false);
  });

  it('turns on direct get for a stream made by an earlier build', async () => {
    const older = createTestStream();
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: older.stream, subjects: [`${older.subjectPrefix}.>`] });
    expect((await jsm.streams.info(older.stream)).config.allow_direct).toBe(false);
    const t = await NatsTransport.connect({ url: older.url, stream: older.stream, subjectPrefix: older.subjectPrefix, logger });
    try {
      expect((await jsm.streams.info(older.stream)).config.allow_direct).toBe(true);
      // and it still takes events and keeps what it had
      await t.publish(outgoing(event('project.created', { project_id: 'prj_x' })));
      expect(await t.streamMessageCount()).toBe(1);
    } finally {
      await t.close();
      await older.drop();
    }
  });
});
