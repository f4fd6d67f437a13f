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
}

const PASSWORD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Creates the first tenant and its administrator (every permission of spec §2.2) when no user
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
  const found = await existing();
  if (found !== undefined) return { created: false, username: found };

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
  if (!created) return { created: false, username: (await existing()) ?? username };
  return { created: true, username, ...(generated ? { password: generated } : {}) };
}
