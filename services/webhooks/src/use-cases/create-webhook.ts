import type { webhooks } from '@mp/contracts';
import { createOnce, type Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { newId, randomToken } from '@mp/kit';
import type { WebhooksDeps } from '../deps.js';
import { statsOf } from '../delivery-stats.js';
import { checkEvents, checkName, checkProjectIds, checkRetryPolicy, checkUrl } from '../validation.js';
import { toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from '../webhook-row.js';

/** Webhooks a tenant may hold per environment; more is refused with 422105. */
export const MAX_WEBHOOKS = 50;

const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function newSigningSecret(): string {
  return `whsec_${randomToken(32, SECRET_ALPHABET)}`;
}

/**
 * POST /webhooks. With an Idempotency-Key the first response is replayed for 24 h, secret included:
 * the replay table holds it sealed with the service's SecretBox, never in plain text (ADR 0012).
 */
export async function createWebhook(deps: WebhooksDeps, req: webhooks.CreateWebhookRequest, ctx: CallerContext): Promise<webhooks.WebhookCreated> {
  const name = checkName(req.name);
  const url = await checkUrl(req.url, deps.sender.allowPrivate);
  const events = checkEvents(req.events, ctx);
  const projectIds = req.projectIds ? checkProjectIds(req.projectIds.values) : null;
  const policy = checkRetryPolicy(req.retryPolicy);
  const secret = newSigningSecret();
  const insert = async (tx: Queryable): Promise<webhooks.WebhookCreated> => {
    const { rows: count } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhooks WHERE tenant_id = $1 AND environment = $2 AND deleted_at IS NULL',
      [ctx.tenantId, ctx.environment],
    );
    if ((count[0]?.n ?? 0) >= MAX_WEBHOOKS) {
      throw new DomainError('422105', {
        field: null,
        detail: `A tenant can hold at most ${MAX_WEBHOOKS} webhooks per environment.`,
        suggestion: 'Delete a webhook you no longer use, or subscribe an existing one to more events.',
      });
    }
    const { rows } = await tx.query<WebhookRow>(
      `INSERT INTO webhooks (id, tenant_id, environment, name, url, events, max_retries, retry_interval, active, secret_sealed, created_by,
                             creator_permissions, project_ids)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${WEBHOOK_COLUMNS}`,
      [
        newId('webhook'),
        ctx.tenantId,
        ctx.environment,
        name,
        url,
        events,
        policy.maxRetries,
        policy.retryInterval,
        req.active ?? true,
        deps.secrets.seal(secret),
        ctx.principalId,
        ctx.permissions,
        projectIds,
      ],
    );
    const row = rows[0]!;
    return { webhook: toWebhook(row, await statsOf(tx, row.id)), secret };
  };
  return createOnce(deps.db, deps.clock.now(), ctx, 'CreateWebhook', req, insert, { sealer: deps.secrets });
}
