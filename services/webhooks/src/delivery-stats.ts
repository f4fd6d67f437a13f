import type { Queryable } from '@mp/db';

/** The success rate looks at deliveries created in this many hours before now. */
export const STATS_WINDOW_HOURS = 24;

export interface DeliveryStatsRow {
  webhook_id: string;
  window_hours: number;
  delivered: number;
  failed: number;
  pending: number;
  /** delivered / (delivered + failed), 4 decimals; null when nothing has finished. */
  success_rate: number | null;
}

export function successRate(delivered: number, failed: number): number | null {
  const finished = delivered + failed;
  return finished === 0 ? null : Math.round((delivered / finished) * 10_000) / 10_000;
}

/**
 * Delivery counts per webhook over the window, by status. Pending deliveries (retries still to
 * come) are counted but do not enter the rate: only finished ones say whether delivery works.
 * One index range scan per webhook (deliveries_by_webhook).
 */
export async function deliveryStats(q: Queryable, webhookIds: string[]): Promise<Map<string, DeliveryStatsRow>> {
  if (webhookIds.length === 0) return new Map();
  const { rows } = await q.query<{ webhook_id: string; delivered: number; failed: number; pending: number }>(
    `SELECT w.id AS webhook_id, s.delivered, s.failed, s.pending
       FROM unnest($1::text[]) AS w(id)
       CROSS JOIN LATERAL (
         SELECT count(*) FILTER (WHERE d.status = 'delivered')::int AS delivered,
                count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
                count(*) FILTER (WHERE d.status = 'pending')::int AS pending
           FROM deliveries d
          WHERE d.webhook_id = w.id AND d.created_at > now() - make_interval(hours => $2::int)
       ) s`,
    [webhookIds, STATS_WINDOW_HOURS],
  );
  return new Map(rows.map((r) => [r.webhook_id, { ...r, window_hours: STATS_WINDOW_HOURS, success_rate: successRate(r.delivered, r.failed) }]));
}

/** Stats of one webhook (zero counts when it has no deliveries in the window). */
export async function statsOf(q: Queryable, webhookId: string): Promise<DeliveryStatsRow> {
  return (await deliveryStats(q, [webhookId])).get(webhookId)!;
}
