/** The event envelope (docs/rules.md#event-envelope), serialised once per delivery and signed as sent. */
export function envelopeBody(event: { event_id: string; event_type: string; occurred_at: string; data: unknown }, webhookId: string): string {
  return JSON.stringify({
    event_id: event.event_id,
    event_type: event.event_type,
    timestamp: event.occurred_at,
    webhook_id: webhookId,
    data: event.data,
  });
}
