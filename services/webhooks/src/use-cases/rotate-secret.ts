import type { webhooks } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { WebhooksDeps } from '../deps.js';
import { statsOf } from '../delivery-stats.js';
import { loadWebhookToActOn, toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from '../webhook-row.js';
import { newSigningSecret } from './create-webhook.js';

export const DEFAULT_GRACE_SECONDS = 86_400;
export const MAX_GRACE_SECONDS = 7 * 86_400;

/**
 * POST /webhooks/{id}/rotate-secret (ADR 0009). Returns a new secret, once. Every delivery keeps
 * carrying ONE signature of docs/rules.md#signatures: the old secret goes on signing until
 * `new_secret_signs_from` (now + grace period, default 24 h), the new one from then on. A receiver
 * adds the new secret next to the old one (accept either), and drops the old one after the switch;
 * no delivery is ever signed with a secret it does not know yet. grace_period_seconds = 0 switches
 * at once (a leaked secret). Rotating again during a grace period replaces the waiting secret
 * (it never signed anything) and keeps the one that signs now.
 */
export async function rotateSecret(deps: WebhooksDeps, req: webhooks.RotateSecretRequest, ctx: CallerContext): Promise<webhooks.SecretRotated> {
  const grace = req.gracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
    throw new DomainError('400003', {
      field: 'grace_period_seconds',
      detail: `grace_period_seconds must be between 0 and ${MAX_GRACE_SECONDS} (7 days).`,
      suggestion: 'Send a grace period long enough to deploy the new secret to your receiver, e.g. 86400 (24 h); 0 switches at once.',
    });
  }
  const secret = newSigningSecret();
  const sealed = deps.secrets.seal(secret);
  const row = await deps.db.transaction(async (tx) => {
    const current = await loadWebhookToActOn(tx, req.id, ctx, true);
    // signing_secret_sealed is the one in use now: it becomes (or stays) the old secret.
    const { rows } = await tx.query<WebhookRow>(
      grace === 0
        ? `UPDATE webhooks SET secret_sealed = $2, next_secret_sealed = NULL, secret_switch_at = NULL, secret_rotated_at = now(),
                  updated_at = now(), version = version + 1 WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`
        : `UPDATE webhooks SET secret_sealed = $3, next_secret_sealed = $2, secret_switch_at = now() + make_interval(secs => $4::int),
                  secret_rotated_at = now(), updated_at = now(), version = version + 1 WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
      grace === 0 ? [current.id, sealed] : [current.id, sealed, current.signing_secret_sealed, grace],
    );
    return rows[0]!;
  });
  return { webhook: toWebhook(row, await statsOf(deps.db, row.id)), secret };
}
