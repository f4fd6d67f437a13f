import type { identity } from '@mp/contracts';
import { IdempotencyKey, isUniqueViolation, type Queryable } from '@mp/db';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { requireCaller } from '../caller.js';
import type { IdentityDeps } from '../deps.js';
import { hashPassword } from '../passwords.js';
import { checkGrantable } from '../permissions.js';
import { checkPhone } from '../phone.js';
import { toUser, USER_COLUMNS, type UserRow } from '../rows.js';
import { checkName, checkPassword, checkUsername, usernameTaken } from '../users.js';

/**
 * POST /users: a user of the caller's tenant. The caller may grant only permissions it holds.
 * A refused request stores nothing. With an Idempotency-Key the created user is replayed for 24 h
 * (ADR 0012). The password is in neither the stored response (a User has no password) nor, as
 * such, in the stored request hash: a keyed digest stands in for it, so a fast hash of the
 * password never reaches the database. A replay is answered before the password is hashed: scrypt
 * is the costly part of this request, and a client retrying after a timeout should not pay it twice.
 */
export async function createUser(deps: IdentityDeps, req: identity.CreateUserRequest, ctx: CallerContext): Promise<identity.User> {
  requireCaller(ctx);
  const username = checkUsername(req.username);
  checkPassword(req.password);
  const name = checkName(req.name);
  const phone = req.phone !== undefined && req.phone !== '' ? checkPhone(req.phone) : null;
  const permissions = checkGrantable(req.permissions, ctx, { allowEmpty: true });
  const now = deps.clock.now();
  const once = IdempotencyKey.of(ctx, 'CreateUser', { ...req, password: deps.secretDigest.of(req.password) }, now);
  const replayed = await once?.replay<identity.User>(deps.db);
  if (replayed) return replayed;
  const passwordHash = await hashPassword(req.password);
  const insert = async (tx: Queryable): Promise<identity.User> => {
    const { rows } = await tx.query<UserRow>(
      `INSERT INTO users (id, tenant_id, username, name, phone, password_hash, permissions, disabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${USER_COLUMNS}`,
      [newId('user'), ctx.tenantId, username, name, phone, passwordHash, permissions, req.disabled, now.toISOString()],
    );
    deps.logger.info({ user_id: rows[0]!.id, tenant_id: ctx.tenantId, created_by: ctx.principalId, request_id: ctx.requestId }, 'user created');
    return toUser(rows[0]!, now);
  };
  try {
    return await (once ? once.run(deps.db, insert) : deps.db.transaction(insert));
  } catch (err) {
    if (isUniqueViolation(err, 'users_username_unique')) throw usernameTaken(username);
    throw err;
  }
}
