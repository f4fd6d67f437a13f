import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { isId } from '@mp/kit';
import type { WebhooksDeps } from '../deps.js';

/** A webhook of the caller, deleted ones included (their delivery log stays readable). */
export async function loadWebhookAnyState(deps: WebhooksDeps, id: string, ctx: CallerContext): Promise<{ id: string }> {
  if (!isId('webhook', id)) throw new DomainError('400004', { field: 'webhook_id', detail: 'webhook_id is not a webhook id (whk_…).' });
  const { rows } = await deps.db.query<{ id: string }>('SELECT id FROM webhooks WHERE id = $1 AND tenant_id = $2 AND environment = $3', [
    id,
    ctx.tenantId,
    ctx.environment,
  ]);
  if (!rows[0]) throw new DomainError('404009', { field: 'webhook_id', detail: `Webhook ${id} does not exist.` });
  return rows[0];
}
