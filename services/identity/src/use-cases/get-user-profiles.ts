import type { identity } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { maskPhone } from '../phone.js';

const MAX_IDS = 100;

/**
 * Display data for other services (the projects service's `changed_by`, `assignee`): name and
 * masked phone of users of the caller's tenant. Only the masked phone ever leaves identity this
 * way. Ids that are unknown or of another tenant are simply absent.
 */
export async function getUserProfiles(deps: IdentityDeps, req: identity.GetUserProfilesRequest, ctx: CallerContext): Promise<identity.UserProfiles> {
  requireCaller(ctx);
  if (req.ids.length > MAX_IDS) {
    throw new DomainError('400003', { field: 'ids', detail: `At most ${MAX_IDS} ids per call; got ${req.ids.length}.`, suggestion: 'Ask in several calls.' });
  }
  if (req.ids.length === 0) return { items: [] };
  const { rows } = await deps.db.query<{ id: string; username: string; name: string; phone: string | null; disabled: boolean }>(
    'SELECT id, username, name, phone, disabled FROM users WHERE id = ANY ($1) AND tenant_id = $2',
    [[...new Set(req.ids)], ctx.tenantId],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const items = [...new Set(req.ids)].flatMap((id) => {
    const r = byId.get(id);
    return r ? [{ id: r.id, username: r.username, name: r.name, phoneMasked: r.phone ? maskPhone(r.phone) : '', disabled: r.disabled }] : [];
  });
  return { items };
}
