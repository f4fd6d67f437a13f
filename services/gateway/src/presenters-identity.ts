import type { identity } from '@mp/contracts';

/** API shapes (snake_case JSON) of the identity area: users, API keys, OAuth clients, plans, /me. */
export const presentIdentity = {
  user: (u: identity.User) => ({
    id: u.id,
    username: u.username,
    name: u.name,
    phone: u.phone ?? null,
    permissions: u.permissions,
    disabled: u.disabled,
    locked_until: u.lockedUntil ?? null,
    last_login_at: u.lastLoginAt ?? null,
    created_at: u.createdAt,
    updated_at: u.updatedAt,
    version: u.version,
  }),
  /** `previous_value_expires_at`: while a rolled key's previous value still works, when it stops. */
  token: (t: identity.TokenResponse) => ({
    access_token: t.accessToken,
    token_type: t.tokenType,
    expires_in: t.expiresIn,
    refresh_token: t.refreshToken,
    scope: t.scope,
  }),
  /**
   * success_rate: delivered / (delivered + failed) over deliveries created in the last 24 h that
   * have finished (null when none has); secret_rotation: set while a rotated secret waits for its
   * switch time (ADR 0009).
   */
  apiKey: (k: identity.ApiKey) => ({
    id: k.id,
    name: k.name,
    permissions: k.permissions,
    environment: k.environment,
    prefix: k.prefix,
    created_at: k.createdAt,
    created_by: k.createdBy ?? null,
    expires_at: k.expiresAt ?? null,
    revoked_at: k.revokedAt ?? null,
    last_used_at: k.lastUsedAt ?? null,
    rolled_at: k.rolledAt ?? null,
    previous_value_expires_at: k.previousValueExpiresAt ?? null,
  }),
  oauthClient: (c: identity.OAuthClient) => ({
    client_id: c.id,
    name: c.name,
    client_type: c.clientType,
    redirect_uris: c.redirectUris,
    environment: c.environment,
    created_at: c.createdAt,
    created_by: c.createdBy ?? null,
  }),
  /** Limits of 0 stand for the operator default and are shown as null. */
  plan: (p: identity.Plan | undefined) =>
    p
      ? {
          name: p.name,
          features: p.features,
          limits: {
            api_requests_per_minute: p.limits?.apiPerMinute || null,
            data_records_per_minute: p.limits?.dataRecordsPerMinute || null,
            report_generations_per_hour: p.limits?.reportsPerHour || null,
            concurrent_requests: p.limits?.concurrentRequests || null,
          },
        }
      : null,
  me: (m: identity.Me) => ({
    principal_type: m.principalType,
    id: m.id,
    name: m.name,
    tenant: { id: m.tenantId, name: m.tenantName },
    environment: m.environment,
    permissions: m.permissions,
    plan: presentIdentity.plan(m.plan),
    user: m.user ? presentIdentity.user(m.user) : null,
    client_id: m.clientId ?? null,
  }),
};
