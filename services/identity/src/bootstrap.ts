import type { Database } from '@mp/db';
import { newId, systemClock, randomToken, type Clock } from '@mp/kit';
import { advisoryXactLock } from './locks.js';
import { hashPassword } from './passwords.js';
import { ALL_PERMISSIONS } from './permissions.js';

export interface FirstAdmin {
  created: boolean;
  username: string;
  /** Only when it was generated here: shown once, never stored in clear, never logged. */
  password?: string;
  /**
   * Where the administrator's password came from on this start: MP_ADMIN_PASSWORD ('setting'),
   * made here ('generated'), or nowhere, because the administrator already existed ('existing').
   */
  passwordSource: 'setting' | 'generated' | 'existing';
  /**
   * MP_ADMIN_PASSWORD was set but not used, because an administrator already existed: the
   * setting only ever creates the first one (a lost password is reset with the operator command).
   */
  passwordSettingIgnored: boolean;
}

const PASSWORD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Creates the first tenant and its administrator (every permission identifier, docs/rules.md#first-administrator) when no user
 * exists yet; does nothing otherwise. Replicas starting together create exactly one: the insert
 * runs under an advisory lock and re-checks.
 */
export async function ensureFirstAdmin(deps: { db: Database; clock?: Clock }, opts: { username?: string; password?: string } = {}): Promise<FirstAdmin> {
  const username = opts.username ?? 'admin';
  const existing = async () => {
    const { rows } = await deps.db.query<{ username: string }>(
      `SELECT username FROM users ORDER BY ('system:admin' = ANY (permissions)) DESC, created_at, id LIMIT 1`,
    );
    return rows[0]?.username;
  };
  const notCreated = (found: string): FirstAdmin => ({
    created: false,
    username: found,
    passwordSource: 'existing',
    passwordSettingIgnored: opts.password !== undefined,
  });
  const found = await existing();
  if (found !== undefined) return notCreated(found);

  // Hash outside the lock: it takes a few hundred milliseconds.
  const generated = opts.password === undefined ? randomToken(20, PASSWORD_ALPHABET) : undefined;
  const passwordHash = await hashPassword(opts.password ?? generated!);
  const now = (deps.clock ?? systemClock).now().toISOString();

  const created = await deps.db.transaction(async (tx) => {
    await advisoryXactLock(tx, 'first-admin');
    const { rows } = await tx.query('SELECT 1 FROM users LIMIT 1');
    if (rows.length > 0) return false;
    const tenantId = newId('tenant');
    await tx.query('INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3)', [tenantId, 'Default tenant', now]);
    await tx.query(
      `INSERT INTO users (id, tenant_id, username, name, password_hash, permissions, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [newId('user'), tenantId, username, 'Administrator', passwordHash, [...ALL_PERMISSIONS], now],
    );
    return true;
  });
  if (!created) return notCreated((await existing()) ?? username);
  return generated
    ? { created: true, username, password: generated, passwordSource: 'generated', passwordSettingIgnored: false }
    : { created: true, username, passwordSource: 'setting', passwordSettingIgnored: false };
}

/**
 * What a start says about the administrator, in lines for a person (the `npm start` banner, the
 * identity process's stdout): only what is true of this start. The generated password is in the
 * lines: print them, never log them.
 */
export function describeFirstAdmin(admin: FirstAdmin): string[] {
  const reset = `npm run operator -- reset-password --username ${admin.username}`;
  switch (admin.passwordSource) {
    case 'generated':
      return [
        `First administrator created: username "${admin.username}", password "${admin.password}"`,
        `(shown once: keep it now; a lost password is reset with \`${reset}\`)`,
      ];
    case 'setting':
      return [`First administrator created: username "${admin.username}", with the password set in MP_ADMIN_PASSWORD`];
    case 'existing':
      return [
        admin.passwordSettingIgnored
          ? `Administrator "${admin.username}" already existed: MP_ADMIN_PASSWORD was ignored (it only sets the first password)`
          : `Administrator "${admin.username}" already existed`,
        `(a lost password is reset with \`${reset}\`)`,
      ];
  }
}
