import type { DomainEvent, EventGroup } from './catalogue.js';
import type { OutgoingEvent } from './envelope.js';

/** `messaging.system` and `messaging.destination.name` of the OpenTelemetry semantic conventions. */
export interface MessagingAttributes {
  'messaging.system': string;
  'messaging.destination.name': string;
}

/** What a consumer's handler says about an event it was given. */
export type HandleResult = void;

export interface SubscribeOptions {
  /**
   * How many events the handler may be given at once (1: one after the other). Each is
   * acknowledged when its own handler resolves, so a failure makes only that one come back.
   */
  concurrency?: number;
  /**
   * The handler is given each event's metadata, and its data only when it is small; larger data
   * is fetched when the handler calls loadEventData (dataAtHand tells which). For a consumer that
   * needs the data of few events, such as the webhooks service, whose subscribers want few of the
   * ~300 KB data.created events a busy ingestion emits. In-process transports ignore it (the data
   * is in memory already).
   */
  dataOnDemand?: boolean;
  /**
   * Only events of this group (`alarm`: alarm.*). On JetStream the durable's filter subject, so the
   * others never reach the consumer; set when the durable is made (a durable keeps its filter).
   */
  group?: EventGroup;
}

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * Moves domain events from producers' outbox relays to consumers. NATS JetStream in
 * distributed mode; an in-process transport in the embedded default. Both promise the same
 * thing: `publish` resolves only once the event is durably taken (JetStream ack, or the
 * consumer's own commit), publishing the same event_id twice delivers it once per window,
 * and a handler that throws gets the event again later.
 */
export interface EventTransport {
  /**
   * The OpenTelemetry messaging attributes of an event of this type on this transport: the
   * messaging system and the destination it is published to (a producer's publish span and a
   * consumer's receive span both carry them).
   */
  messagingAttributes(eventType: string): MessagingAttributes;
  publish(event: OutgoingEvent): Promise<void>;
  /**
   * Publishes events in the order given, with the promise of `publish` for each, and says which
   * were taken: per event `null` once it is durably taken (or recognised as a duplicate by its
   * event_id), or the error that refused it or let it go unacknowledged. It never rejects for one
   * event, so a caller keeps what was taken and publishes the rest again. Transports without a
   * cheaper way leave it out, and each event is published on its own.
   */
  publishMany?(events: readonly OutgoingEvent[]): Promise<(Error | null)[]>;
  subscribe(durableName: string, handler: (event: DomainEvent) => Promise<HandleResult>, opts?: SubscribeOptions): Promise<Subscription>;
  close(): Promise<void>;
}
