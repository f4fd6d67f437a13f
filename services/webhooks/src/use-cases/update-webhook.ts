import type { webhooks } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { WebhooksDeps } from '../deps.js';
import { statsOf } from '../delivery-stats.js';
import { checkEvents, checkName, checkProjectIds, checkRetryPolicy, checkUrl } from '../validation.js';
import { loadWebhookToActOn, toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from '../webhook-row.js';

/**
 * PUT /webhooks/{id}: changes only the fields present (a body holding only `events` is accepted).
 * Limiting it to projects closes its pending deliveries of other projects' events as failed: a
 * receiver limited to a project never gets another one's events, not even those already queued.
 */
export async function updateWebhook(deps: WebhooksDeps, req: webhooks.UpdateWebhookRequest, ctx: CallerContext): Promise<webhooks.Webhook> {
  // Validate before touching the row so a refused update changes nothing.
  if (req.allProjects && req.projectIds !== undefined) {
    throw new DomainError('400001', {
      field: 'project_ids',
      detail: 'Send either project_ids or all projects, not both.',
      suggestion: 'Send project_ids: null for every project, or a list of projects.',
    });
  }
  const name = req.name !== undefined ? checkName(req.name) : undefined;
  const url = req.url !== undefined ? await checkUrl(req.url, deps.sender.allowPrivate) : undefined;
  const events = req.events !== undefined ? checkEvents(req.events.values, ctx) : undefined;
  const projectIds = req.projectIds !== undefined ? checkProjectIds(req.projectIds.values) : undefined;
  const row = await deps.db.transaction(async (tx) => {
    const current = await loadWebhookToActOn(tx, req.id, ctx, true);
    const policy =
      req.retryPolicy !== undefined ? checkRetryPolicy(req.retryPolicy) : { maxRetries: current.max_retries, retryInterval: current.retry_interval };
    const scope = req.allProjects ? null : (projectIds ?? current.project_ids);
    const { rows } = await tx.query<WebhookRow>(
      `UPDATE webhooks SET name = $2, url = $3, events = $4, max_retries = $5, retry_interval = $6, active = $7, project_ids = $8,
              updated_at = now(), version = version + 1
        WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
      [
        current.id,
        name ?? current.name,
        url ?? current.url,
        events ?? current.events,
        policy.maxRetries,
        policy.retryInterval,
        req.active ?? current.active,
        scope,
      ],
    );
    if (scope !== null) {
      await tx.query(
        `UPDATE deliveries d SET status = 'failed', failed_at = now(), error = 'event of a project the webhook no longer receives',
                lease_until = NULL, next_attempt_at = NULL, updated_at = now()
           FROM events e
          WHERE d.webhook_id = $1 AND d.status = 'pending' AND e.event_id = d.event_id
            AND e.data ->> 'project_id' IS NOT NULL AND NOT (e.data ->> 'project_id' = ANY ($2::text[]))`,
        [current.id, scope],
      );
    }
    return rows[0]!;
  });
  return toWebhook(row, await statsOf(deps.db, row.id));
}
