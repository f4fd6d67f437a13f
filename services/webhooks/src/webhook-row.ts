import type { webhooks } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { isId } from '@mp/kit';
import type { CallerContext } from '@mp/grpc';
import type { Queryable } from '@mp/db';

export interface WebhookRow {
  id: string;
  tenant_id: string;
  environment: string;
  name: string;
  url: string;
  events: string[];
  max_retries: number;
  retry_interval: number;
  active: boolean;
  secret_sealed: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export const WEBHOOK_COLUMNS = 'id, tenant_id, environment, name, url, events, max_retries, retry_interval, active, secret_sealed, created_at, updated_at, version';

export function toWebhook(row: WebhookRow): webhooks.Webhook {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    retryPolicy: { maxRetries: row.max_retries, retryInterval: row.retry_interval },
    active: row.active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Loads a webhook of the caller's tenant and environment; any other is reported missing. */
export async function loadWebhook(q: Queryable, id: string, ctx: CallerContext, forUpdate = false): Promise<WebhookRow> {
  if (!isId('webhook', id)) {
    throw new DomainError('400004', { field: 'webhook_id', detail: 'webhook_id is not a webhook id (whk_…).', suggestion: 'Use the id returned when the webhook was created.' });
  }
  const { rows } = await q.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND tenant_id = $2 AND environment = $3 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [id, ctx.tenantId, ctx.environment],
  );
  if (!rows[0]) throw new DomainError('404009', { field: 'webhook_id', detail: `Webhook ${id} does not exist.` });
  return rows[0];
}
