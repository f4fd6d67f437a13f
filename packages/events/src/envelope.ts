import { bufferOf } from '@mp/db';
import type { DomainEvent } from './catalogue.js';

/** An event without its data: what routing, de-duplication and filtering need. */
export type EventMeta = Omit<DomainEvent, 'data'>;

/**
 * An event on its way to the transport, its data already JSON. The outbox keeps data as JSON
 * text and the relay hands that text on untouched: a data.created of 1,000 records is ~300 KB,
 * and parsing and re-serialising it on every hop was a large share of the ingest path's CPU.
 */
export interface OutgoingEvent {
  meta: EventMeta;
  /** The data as JSON: text, or its UTF-8 bytes when the producer has them encoded already. */
  dataJson: string | Uint8Array;
}

const metaOf = (e: EventMeta): EventMeta => ({
  event_id: e.event_id,
  event_type: e.event_type,
  tenant_id: e.tenant_id,
  environment: e.environment,
  occurred_at: e.occurred_at,
  ...(e.traceparent ? { traceparent: e.traceparent } : {}),
});

/** An event built in memory (tests, tools) as the transport takes it. */
export const outgoing = (e: DomainEvent): OutgoingEvent => ({ meta: metaOf(e), dataJson: JSON.stringify(e.data) });

const DATA_KEY = ',"data":';

/**
 * The event as one JSON object (the wire format consumers and operators see), data last, and the
 * byte offset at which data starts, so a consumer can take the metadata without parsing the data.
 * `metaJson` is the metadata alone as JSON (the NATS transport also sends it as a header).
 */
export function encodeEnvelope(e: OutgoingEvent): { body: Buffer; dataOffset: number; metaJson: string } {
  const metaJson = JSON.stringify(metaOf(e.meta));
  const head = Buffer.from(metaJson.slice(0, -1) + DATA_KEY);
  // Data given as bytes is copied, not encoded again (a memcpy instead of ~300 KB of UTF-8 work).
  const data = typeof e.dataJson === 'string' ? Buffer.from(e.dataJson) : e.dataJson;
  return { body: Buffer.concat([head, data, CLOSE], head.length + data.length + 1), dataOffset: head.length, metaJson };
}

const CLOSE = Buffer.from('}');

/** Where a received event's data comes from when it did not come with the event: fetched on demand. */
export interface DataLoader {
  /** About how large the data is (bytes), known before it is fetched. */
  size: number;
  load(): Promise<Uint8Array>;
}

/**
 * An event as a consumer receives it: data is parsed on first use, its JSON text kept
 * (`dataJson`, decoded from the message bytes on first use too), and `dataSize` tells how large
 * that text is without decoding it (bytes as received, characters when built in memory). An event
 * delivered without its data (a consumer that asked for data on demand) has it fetched by
 * `loadEventData`; reading `data` or `dataJson` before that is a programming error and throws.
 */
export type ReceivedEvent = DomainEvent & { readonly dataJson: string; readonly dataSize: number };

/** What receivedEvent keeps out of sight on the event: whether its data is here, and how to fetch it. */
interface DataSlot {
  atHand(): boolean;
  load(): Promise<void>;
}
const slots = new WeakMap<object, DataSlot>();

export function receivedEvent(meta: EventMeta, source: string | Uint8Array | DataLoader): ReceivedEvent {
  const event = metaOf(meta) as ReceivedEvent;
  let text = typeof source === 'string' ? source : undefined;
  let bytes = source instanceof Uint8Array ? bufferOf(source) : undefined;
  const loader = typeof source === 'object' && !(source instanceof Uint8Array) ? source : undefined;
  let data: Record<string, unknown> | undefined;
  const json = () => {
    if (text !== undefined) return text;
    if (!bytes) throw new Error(`The data of event ${meta.event_id} was not delivered with it: await loadEventData(event) before reading it.`);
    return (text = bytes.toString('utf8'));
  };
  // Own properties, `data` enumerable, so spreading or serialising the event still carries its data.
  Object.defineProperty(event, 'dataJson', { enumerable: false, get: json });
  Object.defineProperty(event, 'dataSize', { enumerable: false, value: bytes ? bytes.length : text !== undefined ? text.length : loader!.size });
  Object.defineProperty(event, 'data', { enumerable: true, get: () => (data ??= JSON.parse(json()) as Record<string, unknown>) });
  if (loader) {
    let loading: Promise<void> | undefined;
    slots.set(event, {
      atHand: () => text !== undefined || bytes !== undefined,
      load: () =>
        (loading ??= loader.load().then(
          (b) => void (bytes = bufferOf(b)),
          (err: unknown) => {
            // a failed fetch may be tried again (the event is redelivered and handled anew)
            loading = undefined;
            throw err;
          },
        )),
    });
  }
  return event;
}

/** Whether an event's data can be read now (false only for data a consumer asked to get on demand). */
export const dataAtHand = (e: DomainEvent): boolean => slots.get(e)?.atHand() ?? true;

/** Fetches an event's data if it was not delivered with it; resolves at once when it was. */
export const loadEventData = (e: DomainEvent): Promise<void> => slots.get(e)?.load() ?? Promise.resolve();

/**
 * Splits a message body written by encodeEnvelope into metadata and data. With the data offset
 * the metadata is parsed alone and the data stays bytes; without one (any other producer) the
 * whole body is parsed and the data is its JSON text.
 */
export function readEnvelope(body: Uint8Array, dataOffset: number | null): { meta: EventMeta; data: Uint8Array | string } {
  const buf = bufferOf(body);
  if (
    dataOffset !== null &&
    dataOffset > DATA_KEY.length &&
    dataOffset < buf.length &&
    buf.toString('latin1', dataOffset - DATA_KEY.length, dataOffset) === DATA_KEY
  ) {
    const meta = JSON.parse(buf.toString('utf8', 0, dataOffset - DATA_KEY.length) + '}') as EventMeta;
    // The data stays bytes until read: most consumers look at the metadata only (the webhooks
    // service, for events nobody subscribes to). The bytes are copied, not kept as a view of the
    // message: a copy costs a fraction of decoding them, and the event then owns them whatever
    // the client does with its buffers after the handler returned.
    return { meta, data: Buffer.from(buf.subarray(dataOffset, buf.length - 1)) };
  }
  const whole = JSON.parse(buf.toString('utf8')) as DomainEvent;
  return { meta: whole, data: JSON.stringify(whole.data) };
}

/** The event in a message body written by encodeEnvelope (readEnvelope), its data left unparsed. */
export function decodeEnvelope(body: Uint8Array, dataOffset: number | null): ReceivedEvent {
  const { meta, data } = readEnvelope(body, dataOffset);
  return receivedEvent(meta, data);
}

/** The JSON text of an event's data, without serialising again when it arrived as text. */
export const dataJsonOf = (e: DomainEvent): string => (e as Partial<ReceivedEvent>).dataJson ?? JSON.stringify(e.data);

/** About how large an event's data is as JSON, without decoding or serialising a received one. */
export const dataSizeOf = (e: DomainEvent): number => (e as Partial<ReceivedEvent>).dataSize ?? dataJsonOf(e).length;
