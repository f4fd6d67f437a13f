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
  dataJson: string;
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
 */
export function encodeEnvelope(e: OutgoingEvent): { body: string; dataOffset: number } {
  const head = JSON.stringify(metaOf(e.meta)).slice(0, -1) + DATA_KEY;
  return { body: head + e.dataJson + '}', dataOffset: Buffer.byteLength(head) };
}

/**
 * An event as a consumer receives it: data is parsed on first use, its JSON text kept
 * (`dataJson`, decoded from the message bytes on first use too), and `dataSize` tells how large
 * that text is without decoding it (bytes as received, characters when built in memory).
 */
export type ReceivedEvent = DomainEvent & { readonly dataJson: string; readonly dataSize: number };

export function receivedEvent(meta: EventMeta, dataJson: string | Uint8Array): ReceivedEvent {
  const event = metaOf(meta) as ReceivedEvent;
  let text = typeof dataJson === 'string' ? dataJson : undefined;
  const bytes = typeof dataJson === 'string' ? undefined : Buffer.from(dataJson.buffer, dataJson.byteOffset, dataJson.byteLength);
  let data: Record<string, unknown> | undefined;
  const json = () => (text ??= bytes!.toString('utf8'));
  // Own properties, `data` enumerable, so spreading or serialising the event still carries its data.
  Object.defineProperty(event, 'dataJson', { enumerable: false, get: json });
  Object.defineProperty(event, 'dataSize', { enumerable: false, value: bytes ? bytes.length : text!.length });
  Object.defineProperty(event, 'data', { enumerable: true, get: () => (data ??= JSON.parse(json()) as Record<string, unknown>) });
  return event;
}

/**
 * Reads a message body written by encodeEnvelope. With the data offset the metadata is parsed
 * alone and the data stays text until someone reads it; without one (any other producer) the
 * whole body is parsed.
 */
export function decodeEnvelope(body: Uint8Array, dataOffset: number | null): ReceivedEvent {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (dataOffset !== null && dataOffset > DATA_KEY.length && dataOffset < buf.length && buf.toString('latin1', dataOffset - DATA_KEY.length, dataOffset) === DATA_KEY) {
    const meta = JSON.parse(buf.toString('utf8', 0, dataOffset - DATA_KEY.length) + '}') as EventMeta;
    // The data stays bytes until read: most consumers look at the metadata only (the webhooks
    // service, for events nobody subscribes to). The bytes are copied, not kept as a view of the
    // message: a copy costs a fraction of decoding them, and the event then owns them whatever
    // the client does with its buffers after the handler returned.
    return receivedEvent(meta, Buffer.from(buf.subarray(dataOffset, buf.length - 1)));
  }
  const whole = JSON.parse(buf.toString('utf8')) as DomainEvent;
  return receivedEvent(whole, JSON.stringify(whole.data));
}

/** The JSON text of an event's data, without serialising again when it arrived as text. */
export const dataJsonOf = (e: DomainEvent): string => (e as Partial<ReceivedEvent>).dataJson ?? JSON.stringify(e.data);

/** About how large an event's data is as JSON, without decoding or serialising a received one. */
export const dataSizeOf = (e: DomainEvent): number => (e as Partial<ReceivedEvent>).dataSize ?? dataJsonOf(e).length;
