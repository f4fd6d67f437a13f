import {
  AckPolicy,
  DeliverPolicy,
  connect,
  createInbox,
  headers,
  type Msg,
  type MsgHdrs,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
} from 'nats';
import { bufferOf } from '@mp/db';
import { sampledGauge, type Logger } from '@mp/kit';
import { subjectFor, type DomainEvent, type EventType } from './catalogue.js';
import { decodeEnvelope, encodeEnvelope, readEnvelope, receivedEvent, type EventMeta, type OutgoingEvent, type ReceivedEvent } from './envelope.js';
import type { EventTransport, MessagingAttributes, SubscribeOptions, Subscription } from './transport.js';

export interface NatsTransportOptions {
  url: string;
  /** JetStream stream that holds the domain events. */
  stream: string;
  /** Subject prefix, e.g. `mp.events`; the stream captures `<prefix>.>`. */
  subjectPrefix: string;
  logger: Logger;
  /** How long a consumer has to ack before JetStream redelivers. */
  ackWaitMs?: number;
  /** Wait before an event whose handler threw is offered again. */
  retryDelayMs?: number;
  /** The stream's limits, applied when it is made and whenever they differ from a running stream's (ADR 0046). */
  retention?: StreamRetention;
}

/**
 * How much of the event history the stream keeps, and on how many servers. A message past either
 * limit is removed, oldest first, whether or not a consumer has taken it yet, so the limits must
 * exceed the longest outage of a consumer the platform rides out (README, ADR 0046).
 */
export interface StreamRetention {
  /** Age limit in milliseconds; 0 keeps messages regardless of age. */
  maxAgeMs: number;
  /** Size limit in bytes; -1 for none. */
  maxBytes: number;
  /** Copies of each message in a JetStream cluster (1, 3 or 5; at most the number of servers). */
  replicas: number;
}

const NO_RETENTION_LIMITS: StreamRetention = { maxAgeMs: 0, maxBytes: -1, replicas: 1 };

/** Byte offset of the data in the body (envelope.ts), so consumers can leave it unparsed. */
const DATA_OFFSET = 'Mp-Data-Offset';
/** The event's metadata as JSON, so a consumer that takes headers only knows what the event is. */
const EVENT_META = 'Mp-Event';
/** The data's JSON text as well, for events whose data is small: such a consumer has them whole. */
const INLINE_DATA = 'Mp-Data';
/**
 * Data up to this size also travels in the Mp-Data header. Most events are far smaller; a
 * 1,000-record data.created is ~300 KB, and a consumer with data on demand fetches only those
 * of them it needs (JSON text never holds a raw CR or LF, so it is a valid header value).
 */
export const INLINE_DATA_MAX_BYTES = 4096;
/** Set by JetStream on a headers-only delivery: the size of the body left out. */
const MSG_SIZE = 'Nats-Msg-Size';

/**
 * The client's direct-get API (`jsm.direct`, in nats.js since 2.10 and in its README, but not in
 * the JetStreamManager type it exports): a stored message as it is, where `streams.getMessage`
 * wraps the body in JSON and base64.
 */
interface DirectGet {
  getMessage(stream: string, query: { seq: number }): Promise<{ data: Uint8Array; header?: { get(key: string): string } }>;
}

/**
 * NATS JetStream transport. Publishing sets `Nats-Msg-Id` to the event_id so a relay that
 * publishes the same row twice (crash between publish and mark) stores it once. Consumers are
 * durable pull consumers with explicit acks.
 */
export class NatsTransport implements EventTransport {
  /** Made once: every jetstreamManager() call asks the server whether JetStream is there. */
  private jsm: JetStreamManager | null = null;
  private direct: DirectGet | null = null;
  /** Made once too: a JetStream client per publish was an object and its options per event. */
  private readonly js: JetStreamClient;
  /** publishMany's batches waiting for their acknowledgements, by batch number. */
  private readonly batches = new Map<number, PendingBatch>();
  private nextBatch = 0;
  /** Where JetStream acknowledges publishMany's messages (`<inbox>.<batch>.<index>`): one subscription for all. */
  private ackInbox: string | null = null;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly opts: NatsTransportOptions,
  ) {
    this.js = nc.jetstream();
  }

  static async connect(opts: NatsTransportOptions): Promise<NatsTransport> {
    const nc = await connect({
      servers: opts.url,
      name: `mp-${opts.stream}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // No stack captured per request: every JetStream publish is one, and capturing cost ~70 µs
      // of CPU each (bench/webhooks profile); failures still say what failed.
      noAsyncTraces: true,
    });
    const transport = new NatsTransport(nc, opts);
    try {
      await transport.ensureStream();
    } catch (err) {
      await nc.close();
      throw err;
    }
    return transport;
  }

  private async manager(): Promise<JetStreamManager> {
    if (!this.jsm) {
      this.jsm = await this.nc.jetstreamManager();
      const direct = (this.jsm as JetStreamManager & { direct?: DirectGet }).direct;
      if (typeof direct?.getMessage !== 'function') throw new Error('this nats client has no direct get (jsm.direct); data on demand needs it');
      this.direct = direct;
    }
    return this.jsm;
  }

  private async ensureStream(): Promise<void> {
    const jsm = await this.manager();
    const name = this.opts.stream;
    const r = this.opts.retention ?? NO_RETENTION_LIMITS;
    // Consumers with data on demand read bodies by direct get (allow_direct), which a stream made
    // by an earlier build has not enabled yet; the limits are the operator's current settings.
    const wanted = { allow_direct: true, max_age: r.maxAgeMs * 1_000_000, max_bytes: r.maxBytes, num_replicas: r.replicas };
    const refused = (what: string, reason: string) =>
      new Error(
        `JetStream stream ${name}: cannot ${what} with max age ${r.maxAgeMs} ms, max bytes ${r.maxBytes}, ${r.replicas} replica(s) (MP_NATS_MAX_AGE_HOURS, MP_NATS_MAX_BYTES, MP_NATS_REPLICAS): ${reason}`,
      );
    // A server outside a cluster refuses more than one copy when a stream is made, but takes it
    // silently as an update (and still keeps one): so it is checked here, before either.
    if (r.replicas > 1 && !this.nc.info?.cluster)
      throw refused('keep it', 'the NATS server is not part of a cluster, so it keeps one copy; set MP_NATS_REPLICAS=1');
    let config = (await jsm.streams.info(name).catch(() => null))?.config;
    if (!config) {
      try {
        config = (await jsm.streams.add({ name, subjects: [`${this.opts.subjectPrefix}.>`], duplicate_window: 2 * 60 * 1_000_000_000, ...wanted })).config;
      } catch (err) {
        // Another replica may have made it between our info and add.
        config = (await jsm.streams.info(name).catch(() => null))?.config;
        if (!config) throw refused('make it', (err as Error).message);
      }
    }
    const found = config;
    if ((Object.keys(wanted) as (keyof typeof wanted)[]).some((k) => found[k] !== wanted[k])) {
      try {
        config = (await jsm.streams.update(name, { ...found, ...wanted })).config;
      } catch (err) {
        throw refused('update it', (err as Error).message);
      }
      this.opts.logger.info({ stream: name, max_age_ms: r.maxAgeMs, max_bytes: r.maxBytes, replicas: r.replicas }, 'event stream limits applied');
    }
  }

  messagingAttributes(eventType: string): MessagingAttributes {
    return { 'messaging.system': 'nats', 'messaging.destination.name': subjectFor(this.opts.subjectPrefix, eventType as EventType) };
  }

  async publish(event: OutgoingEvent): Promise<void> {
    const { body, h } = this.message(event);
    await this.js.publish(subjectFor(this.opts.subjectPrefix, event.meta.event_type), body, {
      msgID: event.meta.event_id,
      headers: h,
      expect: { streamName: this.opts.stream },
    });
  }

  /**
   * Publishes events back to back on the connection, in the order given, and waits for all their
   * acknowledgements together (ADR 0128). Each message carries what `js.publish` sets
   * (`Nats-Msg-Id` = event_id, so a repeat is dropped by the stream; `Nats-Expected-Stream`) and a
   * reply subject `<inbox>.<batch>.<index>`; one subscription takes every acknowledgement and one
   * timer bounds the batch, where `js.publish` paid a request (a reply entry, a timer, a promise)
   * per event. The server stores the messages of one connection in the order they were sent.
   * Resolves per event with null (stored, or a duplicate) or the error: a status (503: no stream
   * takes the subject), a JetStream error, or no acknowledgement within the timeout (the event may
   * still have been stored; publishing it again is harmless).
   */
  async publishMany(events: readonly OutgoingEvent[]): Promise<(Error | null)[]> {
    const outcome: (Error | null | undefined)[] = new Array<undefined>(events.length).fill(undefined);
    if (events.length === 0) return [];
    const inbox = this.acks();
    const id = this.nextBatch++;
    let left = events.length;
    let settle!: PendingBatch;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.batches.delete(id);
        resolve();
      }, PUBLISH_TIMEOUT_MS);
      settle = (index, err) => {
        if (!(index >= 0 && index < outcome.length) || outcome[index] !== undefined) return;
        outcome[index] = err;
        if (--left > 0) return;
        clearTimeout(timer);
        this.batches.delete(id);
        resolve();
      };
    });
    this.batches.set(id, settle);
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      try {
        const { body, h } = this.message(event);
        h.set('Nats-Msg-Id', event.meta.event_id);
        h.set('Nats-Expected-Stream', this.opts.stream);
        this.nc.publish(subjectFor(this.opts.subjectPrefix, event.meta.event_type), body, { headers: h, reply: `${inbox}.${id}.${i}` });
      } catch (err) {
        // a closed connection refuses at once; the rest of the batch meets the same
        settle(i, err instanceof Error ? err : new Error(String(err)));
      }
    }
    await done;
    return outcome.map((o) => (o === undefined ? new Error(`JetStream did not acknowledge the event within ${PUBLISH_TIMEOUT_MS} ms`) : o));
  }

  /** The acknowledgement subscription of publishMany, made on first use (the client renews it after a reconnect). */
  private acks(): string {
    if (this.ackInbox) return this.ackInbox;
    const inbox = createInbox();
    this.nc.subscribe(`${inbox}.>`, {
      callback: (err, m) => {
        if (!err) this.acknowledged(inbox, m);
      },
    });
    this.ackInbox = inbox;
    return inbox;
  }

  private acknowledged(inbox: string, m: Msg): void {
    const [batch, index] = m.subject.slice(inbox.length + 1).split('.');
    // a batch that timed out is gone: a late acknowledgement changes nothing
    const settle = this.batches.get(Number(batch));
    if (!settle) return;
    const i = Number(index);
    if (m.headers?.hasError) return settle(i, new Error(`JetStream refused the event: ${m.headers.code} ${m.headers.description}`));
    let ack: { error?: { code?: number; description?: string } };
    try {
      ack = JSON.parse(utf8.decode(m.data)) as typeof ack;
    } catch {
      return settle(i, new Error('JetStream answered a publish with something that is not an acknowledgement'));
    }
    settle(i, ack.error ? new Error(`JetStream refused the event: ${ack.error.code} ${ack.error.description}`) : null);
  }

  private message(event: OutgoingEvent): { body: Uint8Array; h: MsgHdrs } {
    const h = headers();
    if (event.meta.traceparent) h.set('traceparent', event.meta.traceparent);
    const { body, dataOffset, metaJson } = encodeEnvelope(event);
    h.set(DATA_OFFSET, String(dataOffset));
    h.set(EVENT_META, metaJson);
    const inline = inlineData(event.dataJson);
    if (inline !== null) h.set(INLINE_DATA, inline);
    return { body, h };
  }

  /**
   * The event a message carries. A whole message is decoded from its body. A headers-only one
   * (data on demand) takes its metadata from Mp-Event and its data from Mp-Data when small, or
   * else from the stream by sequence when the handler asks (loadEventData); a message from a
   * producer that sent no Mp-Event header is read whole from the stream at once.
   */
  private async decode(m: JsMsg): Promise<ReceivedEvent> {
    const size = m.headers?.get(MSG_SIZE);
    if (!size) return decodeEnvelope(m.data, offsetOf(m.headers?.get(DATA_OFFSET)));
    const metaJson = m.headers!.get(EVENT_META);
    if (!metaJson) {
      const { meta, data } = await this.stored(m.seq);
      return receivedEvent(meta, data);
    }
    const meta = JSON.parse(metaJson) as EventMeta;
    if (m.headers!.has(INLINE_DATA)) return receivedEvent(meta, m.headers!.get(INLINE_DATA));
    return receivedEvent(meta, {
      size: Number(size),
      load: async () => {
        const stored = await this.stored(m.seq);
        if (stored.meta.event_id !== meta.event_id) throw new Error(`stream message ${m.seq} holds event ${stored.meta.event_id}, not ${meta.event_id}`);
        return typeof stored.data === 'string' ? Buffer.from(stored.data) : stored.data;
      },
    });
  }

  /** A stored message read back from the stream (direct get: the body as it is, not wrapped in JSON and base64). */
  private async stored(seq: number): Promise<ReturnType<typeof readEnvelope>> {
    const sm = await this.direct!.getMessage(this.opts.stream, { seq });
    return readEnvelope(sm.data, offsetOf(sm.header?.get(DATA_OFFSET)));
  }

  async subscribe(durableName: string, handler: (event: DomainEvent) => Promise<void>, opts: SubscribeOptions = {}): Promise<Subscription> {
    const concurrency = Math.max(1, opts.concurrency ?? 1);
    const jsm = await this.manager();
    const ackWaitNs = (this.opts.ackWaitMs ?? 30_000) * 1_000_000;
    const headersOnly = opts.dataOnDemand === true;
    const existing = await jsm.consumers.info(this.opts.stream, durableName).catch(() => null);
    if (!existing) {
      const config: Partial<ConsumerConfig> = {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ackWaitNs,
        max_ack_pending: 10_000,
        filter_subject: `${this.opts.subjectPrefix}.${opts.group ? `${opts.group}.>` : '>'}`,
        headers_only: headersOnly,
      };
      await jsm.consumers.add(this.opts.stream, config);
    } else if ((existing.config.headers_only ?? false) !== headersOnly) {
      // A durable made by an earlier build keeps its position; only what it delivers changes.
      await jsm.consumers.update(this.opts.stream, durableName, { headers_only: headersOnly });
    }
    const consumer = await this.js.consumers.get(this.opts.stream, durableName);
    const retryDelayMs = this.opts.retryDelayMs ?? 1000;
    let messages: ConsumerMessages | null = null;
    let stopped = false;

    const loop = async () => {
      while (!stopped) {
        try {
          messages = await consumer.consume({ max_messages: Math.max(500, concurrency) });
          // Up to `concurrency` messages are handled at once; each is acknowledged when its own
          // handler resolves (a consumer that batches them commits many together).
          const inFlight = new Set<Promise<void>>();
          for await (const m of messages) {
            let event: DomainEvent;
            try {
              event = await this.decode(m);
              // The message's own trace header is the context to continue (ADR 0037); the
              // metadata's copy serves messages published without it.
              const traceparent = m.headers?.get('traceparent');
              if (traceparent && traceparent.length <= 128) event.traceparent = traceparent;
            } catch (err) {
              if (isFetchFailure(err)) {
                // the stream could not be read just now (not a bad message): offer it again later
                this.opts.logger.warn({ err, seq: m.seq }, 'event body could not be fetched; redelivering later');
                m.nak(retryDelayMs);
                continue;
              }
              // A message that is not an event can never be handled; keep it out of the way.
              this.opts.logger.error({ err, subject: m.subject }, 'undecodable event terminated');
              m.term();
              continue;
            }
            const handled: Promise<void> = handler(event).then(
              () => m.ack(),
              (err) => {
                this.opts.logger.warn({ err, event_id: event.event_id }, 'event handler failed; redelivering later');
                m.nak(retryDelayMs);
              },
            );
            const tracked = handled.finally(() => inFlight.delete(tracked));
            inFlight.add(tracked);
            if (inFlight.size >= concurrency) await Promise.race(inFlight);
          }
          await Promise.all(inFlight);
        } catch (err) {
          if (stopped) break;
          this.opts.logger.warn({ err }, 'event consumer interrupted; resuming');
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    };
    const running = loop();
    // Consumer lag as JetStream counts it, read when scraped (bounded: one series per durable name).
    const lag = async () => {
      const info = await jsm.consumers.info(this.opts.stream, durableName);
      return [{ labels: { consumer: durableName }, value: info.num_pending + info.num_ack_pending }];
    };
    const unregisterLag = sampledGauge(
      {
        name: 'mp_jetstream_consumer_lag',
        help: 'Events in the stream not yet acknowledged by the durable consumer (waiting plus in flight), by consumer.',
        labelNames: ['consumer'],
      },
      lag,
    );
    return {
      stop: async () => {
        unregisterLag();
        stopped = true;
        messages?.stop();
        await running;
      },
    };
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => this.nc.close());
  }

  /** For tests and tools: how many events the stream holds. */
  async streamMessageCount(): Promise<number> {
    const jsm = await this.manager();
    return (await jsm.streams.info(this.opts.stream)).state.messages;
  }
}

/** How long publishMany waits for a batch's acknowledgements (js.publish's own default per event). */
const PUBLISH_TIMEOUT_MS = 5_000;

/** Records one event's outcome of a publishMany batch: null when stored, else why not. */
type PendingBatch = (index: number, err: Error | null) => void;

const utf8 = new TextDecoder();

const offsetOf = (header: string | undefined): number | null => (header ? Number(header) : null);

/** The data as text for the Mp-Data header when it is small enough to travel there, else null. */
function inlineData(data: string | Uint8Array): string | null {
  // a UTF-16 unit is at least one UTF-8 byte: a longer text cannot fit
  if (data.length > INLINE_DATA_MAX_BYTES) return null;
  const text = typeof data === 'string' ? data : bufferOf(data).toString('utf8');
  return Buffer.byteLength(text) <= INLINE_DATA_MAX_BYTES ? text : null;
}

/** A failure to reach the stream (as opposed to a message that can never be decoded). */
const isFetchFailure = (err: unknown): boolean =>
  err instanceof Error &&
  'code' in err &&
  typeof (err as { code: unknown }).code === 'string' &&
  /^(\d{3}|TIMEOUT|CONNECTION_CLOSED|CONNECTION_DRAINING|DISCONNECT)$/.test((err as { code: string }).code);
