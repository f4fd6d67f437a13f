import { AckPolicy, DeliverPolicy, connect, headers, type ConsumerMessages, type NatsConnection } from 'nats';
import type { Logger } from '@mp/kit';
import { subjectFor, type DomainEvent } from './catalogue.js';
import { decodeEnvelope, encodeEnvelope, type OutgoingEvent } from './envelope.js';
import type { EventTransport, SubscribeOptions, Subscription } from './transport.js';

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
}

/** Byte offset of the data in the body (envelope.ts), so consumers can leave it unparsed. */
const DATA_OFFSET = 'Mp-Data-Offset';

/**
 * NATS JetStream transport. Publishing sets `Nats-Msg-Id` to the event_id so a relay that
 * publishes the same row twice (crash between publish and mark) stores it once. Consumers are
 * durable pull consumers with explicit acks.
 */
export class NatsTransport implements EventTransport {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly opts: NatsTransportOptions,
  ) {}

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
    await transport.ensureStream();
    return transport;
  }

  private async ensureStream(): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    const subjects = [`${this.opts.subjectPrefix}.>`];
    try {
      await jsm.streams.info(this.opts.stream);
    } catch {
      try {
        await jsm.streams.add({ name: this.opts.stream, subjects, duplicate_window: 2 * 60 * 1_000_000_000 });
      } catch (err) {
        // Another replica may have created it between our info and add.
        await jsm.streams.info(this.opts.stream).catch(() => {
          throw err;
        });
      }
    }
  }

  async publish(event: OutgoingEvent): Promise<void> {
    const h = headers();
    if (event.meta.traceparent) h.set('traceparent', event.meta.traceparent);
    const { body, dataOffset } = encodeEnvelope(event);
    h.set(DATA_OFFSET, String(dataOffset));
    await this.nc.jetstream().publish(subjectFor(this.opts.subjectPrefix, event.meta.event_type), Buffer.from(body), {
      msgID: event.meta.event_id,
      headers: h,
      expect: { streamName: this.opts.stream },
    });
  }

  async subscribe(durableName: string, handler: (event: DomainEvent) => Promise<void>, opts: SubscribeOptions = {}): Promise<Subscription> {
    const concurrency = Math.max(1, opts.concurrency ?? 1);
    const jsm = await this.nc.jetstreamManager();
    const ackWaitNs = (this.opts.ackWaitMs ?? 30_000) * 1_000_000;
    try {
      await jsm.consumers.info(this.opts.stream, durableName);
    } catch {
      await jsm.consumers.add(this.opts.stream, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ackWaitNs,
        max_ack_pending: 10_000,
        filter_subject: `${this.opts.subjectPrefix}.>`,
      });
    }
    const consumer = await this.nc.jetstream().consumers.get(this.opts.stream, durableName);
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
              const offset = m.headers?.get(DATA_OFFSET);
              event = decodeEnvelope(m.data, offset ? Number(offset) : null);
            } catch (err) {
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
    return {
      stop: async () => {
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
    const jsm = await this.nc.jetstreamManager();
    return (await jsm.streams.info(this.opts.stream)).state.messages;
  }
}

