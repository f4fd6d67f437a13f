import { eventGroup, type DomainEvent } from './catalogue.js';
import { receivedEvent, type OutgoingEvent } from './envelope.js';
import type { EventTransport, MessagingAttributes, SubscribeOptions, Subscription } from './transport.js';

/**
 * The embedded default's transport: events go straight to the in-process consumers. `publish`
 * resolves only after every subscribed handler has taken the event (the webhooks service commits
 * it to its own tables), so the outbox row stays pending until the event is durable elsewhere;
 * a handler that throws makes `publish` throw, and the relay retries. Before any consumer has
 * subscribed, publish fails, so nothing is marked dispatched into the void.
 */
export class MemoryTransport implements EventTransport {
  private readonly handlers = new Map<string, (event: DomainEvent) => Promise<void>>();
  private readonly seen = new Map<string, number>();
  private readonly dedupeWindowMs = 2 * 60_000;

  /** No broker: the system is named for what it is, the destination for the event type. */
  messagingAttributes(eventType: string): MessagingAttributes {
    return { 'messaging.system': 'mp_in_process', 'messaging.destination.name': eventType };
  }

  async publish(event: OutgoingEvent): Promise<void> {
    if (this.handlers.size === 0) throw new Error('no event consumer is subscribed yet');
    const now = Date.now();
    const at = this.seen.get(event.meta.event_id);
    if (at !== undefined && now - at < this.dedupeWindowMs) return;
    // Each consumer gets its own copy (parsed from the JSON on first use), as over the wire.
    await Promise.all([...this.handlers.values()].map((h) => h(receivedEvent(event.meta, event.dataJson))));
    this.seen.set(event.meta.event_id, now);
    if (this.seen.size > 100_000) {
      for (const [id, t] of this.seen) if (now - t >= this.dedupeWindowMs) this.seen.delete(id);
    }
  }

  async subscribe(durableName: string, handler: (event: DomainEvent) => Promise<void>, opts: SubscribeOptions = {}): Promise<Subscription> {
    const group = opts.group;
    this.handlers.set(durableName, group ? async (event) => (eventGroup(event.event_type) === group ? handler(event) : undefined) : handler);
    return { stop: async () => void this.handlers.delete(durableName) };
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
