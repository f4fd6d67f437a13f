import { randomBytes } from 'node:crypto';
import type { identity } from '@mp/contracts';
import type { CallerContext, PromiseClient } from '@mp/grpc';

export const RESET_PASSWORD_USAGE = `  reset-password --username USER [--tenant TENANT_ID] [--password PASS]
              a lost password: sets it (generated and printed once when --password is absent),
              ends the user's sessions and lifts its sign-in locks`;

/**
 * `reset-password`: through identity's operator call, like every other command, so it works the
 * same against `npm start` (the credential in its data folder, while the platform runs) and a
 * deployment (the operator key). Answers the user, the sessions ended and, when it generated
 * one, the password.
 */
export async function resetPasswordCommand(
  client: PromiseClient<identity.IdentityServer>,
  values: { username: string; tenant?: string | undefined; password?: string | undefined },
  ctx: CallerContext,
): Promise<identity.PasswordReset & { password?: string }> {
  const generated = values.password ? null : randomBytes(18).toString('base64url');
  const reset = await client.resetPassword(
    { username: values.username, password: values.password ?? generated!, ...(values.tenant ? { tenantId: values.tenant } : {}) },
    ctx,
  );
  return { ...reset, ...(generated ? { password: generated } : {}) };
}
