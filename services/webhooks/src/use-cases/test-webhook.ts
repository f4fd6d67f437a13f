import type { webhooks } from '@mp/contracts';
import { TEST_EVENT, TEST_EVENT_TYPE } from '@mp/events';
import type { z } from 'zod';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import type { WebhooksDeps } from '../deps.js';
import { recordAttempts, sendAttempt, type ClaimedDelivery } from '../attempt.js';
import { DELIVERY_COLUMNS, toDelivery, type DeliveryRow } from '../delivery-row.js';
import { loadWebhookToActOn } from '../webhook-row.js';

/** The `data` of a webhook.test event (documented in README "Receiving webhooks"). */
export function testEventData(webhook: { id: string; name: string }): z.infer<typeof TEST_EVENT.payload> {
  return { message: 'Test event from the Monitoring Platform. No action is needed.', webhook_id: webhook.id, webhook_name: webhook.name };
}

/**
 * POST /webhooks/{id}/test: sends a `webhook.test` event to this webhook now, signed like any
 * other (with the secret that signs now, the old one during a rotation's grace period), and
 * answers with its delivery record. A test gets one attempt (no retries), so the caller sees the
 * receiver's answer in the response; it works on inactive webhooks too.
 */
export async function testWebhook(deps: WebhooksDeps, req: webhooks.WebhookRef, ctx: CallerContext): Promise<webhooks.Delivery> {
  const webhook = await loadWebhookToActOn(deps.db, req.id, ctx);
  const event = { event_id: newId('event'), event_type: TEST_EVENT_TYPE, occurred_at: deps.clock.now().toISOString(), data: testEventData(webhook) };
  const deliveryId = newId('delivery');
  await deps.db.transaction(async (tx) => {
    await tx.query(`INSERT INTO events (event_id, event_type, tenant_id, environment, occurred_at, data) VALUES ($1, $2, $3, $4, $5, $6)`, [
      event.event_id,
      event.event_type,
      ctx.tenantId,
      ctx.environment,
      event.occurred_at,
      JSON.stringify(event.data),
    ]);
    await tx.query(
      `INSERT INTO deliveries (id, event_id, webhook_id, tenant_id, environment, event_type, next_attempt_at, lease_until)
       VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL)`,
      [deliveryId, event.event_id, webhook.id, ctx.tenantId, ctx.environment, event.event_type],
    );
  });
  const claimed: ClaimedDelivery = {
    id: deliveryId,
    attempts: 0,
    cycle: 1,
    ...event,
    // a test attempt is part of the call that asked for it (the active span)
    traceparent: null,
    webhook_id: webhook.id,
    tenant_id: ctx.tenantId,
    url: webhook.url,
    secret_sealed: webhook.signing_secret_sealed,
    max_retries: 0,
    retry_interval: webhook.retry_interval,
    active: true,
    deleted: false,
  };
  const startedAt = deps.clock.now();
  const result = await sendAttempt(deps, claimed);
  deps.metrics.observeAttempt(result);
  await recordAttempts(deps.db, [{ delivery: claimed, startedAt, finishedAt: deps.clock.now(), result, allowRetry: false }]);
  const { rows } = await deps.db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = $1`, [deliveryId]);
  return toDelivery(rows[0]!);
}
