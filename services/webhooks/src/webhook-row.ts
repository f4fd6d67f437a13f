import type { webhooks } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { isId } from '@mp/kit';
import { requireReachable, type CallerContext } from '@mp/grpc';
import type { Queryable } from '@mp/db';
import type { DeliveryStatsRow } from './delivery-stats.js';
import { eventReadPermissions } from './validation.js';

export interface WebhookRow {
  id: string;
  tenant_id: string;
  environment: string;
  name: string;
  url: string;
  events: string[];
  /** The projects whose events it receives; null for all (ADR 0064). */
  project_ids: string[] | null;
  /** The permissions of the principal that made it: acting on it needs them all (ADR 0063). */
  creator_permissions: string[];
  max_retries: number;
  retry_interval: number;
  active: boolean;
  secret_sealed: string;
  next_secret_sealed: string | null;
  secret_switch_at: string | null;
  secret_rotated_at: string | null;
  /** The secret that signs now: the rotated-in one once its switch time has passed. */
  signing_secret_sealed: string;
  /** A rotated secret is waiting for its switch time (by the database clock). */
  rotation_pending: boolean;
  created_at: string;
  updated_at: string;
  version: number;
}

/** SQL for the secret that signs now (ADR 0009): the new one from its switch time, else the old. */
export const SIGNING_SECRET_SQL = (alias = '') => {
  const a = alias ? `${alias}.` : '';
  return `CASE WHEN ${a}next_secret_sealed IS NOT NULL AND ${a}secret_switch_at <= now() THEN ${a}next_secret_sealed ELSE ${a}secret_sealed END`;
};

export const WEBHOOK_COLUMNS = `id, tenant_id, environment, name, url, events, project_ids, creator_permissions, max_retries, retry_interval, active, secret_sealed,
  next_secret_sealed, secret_switch_at, secret_rotated_at, ${SIGNING_SECRET_SQL()} AS signing_secret_sealed,
  (next_secret_sealed IS NOT NULL AND secret_switch_at > now()) AS rotation_pending, created_at, updated_at, version`;

export function toWebhook(row: WebhookRow, stats: DeliveryStatsRow): webhooks.Webhook {
  const w: webhooks.Webhook = {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    ...(row.project_ids !== null ? { projectIds: { values: row.project_ids } } : {}),
    retryPolicy: { maxRetries: row.max_retries, retryInterval: row.retry_interval },
    active: row.active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveryStats: { windowHours: stats.window_hours, delivered: stats.delivered, failed: stats.failed, pending: stats.pending },
  };
  if (stats.success_rate !== null) w.successRate = stats.success_rate;
  if (row.rotation_pending && row.secret_switch_at && row.secret_rotated_at) {
    w.secretRotation = { rotatedAt: row.secret_rotated_at, newSecretSignsFrom: row.secret_switch_at };
  }
  return w;
}

/**
 * Loads a webhook of the caller's tenant and environment to act on it (change, test, rotate, read
 * its deliveries, delete): any other is reported missing, and one that holds more than the caller
 * — its maker's permissions, or what reading its events needs — is out of reach (401004, ADR 0063).
 */
export async function loadWebhookToActOn(q: Queryable, id: string, ctx: CallerContext, forUpdate = false): Promise<WebhookRow> {
  const row = await loadWebhook(q, id, ctx, forUpdate);
  requireReachable([...row.creator_permissions, ...eventReadPermissions(row.events)], ctx, { field: 'webhook_id', name: `Webhook ${row.id}` });
  return row;
}

/** Loads a webhook of the caller's tenant and environment; any other is reported missing. */
export async function loadWebhook(q: Queryable, id: string, ctx: CallerContext, forUpdate = false): Promise<WebhookRow> {
  if (!isId('webhook', id)) {
    throw new DomainError('400004', {
      field: 'webhook_id',
      detail: 'webhook_id is not a webhook id (whk_…).',
      suggestion: 'Use the id returned when the webhook was created.',
    });
  }
  const { rows } = await q.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND tenant_id = $2 AND environment = $3 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [id, ctx.tenantId, ctx.environment],
  );
  if (!rows[0]) throw new DomainError('404009', { field: 'webhook_id', detail: `Webhook ${id} does not exist.` });
  return rows[0];
}
