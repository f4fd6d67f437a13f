import { z } from 'zod';
import { envPort, parseConfig } from '@mp/kit';
import { infraSchema } from '@mp/runtime';

/** An optional setting where an empty string means "unset" (as shells and Helm values often pass it). */
const optionalString = (schema: z.ZodString) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

export const identityConfigSchema = infraSchema.extend({
  MP_IDENTITY_GRPC_PORT: envPort(50051),
  MP_GRPC_HOST: z.string().default('127.0.0.1'),
  /** First administrator, created on the first start when no user exists (default "admin"). */
  MP_ADMIN_USERNAME: optionalString(z.string().min(1).max(200)),
  /** Unset: a 20-character password is generated and printed once. */
  MP_ADMIN_PASSWORD: optionalString(z.string().min(8, 'at least 8 characters').max(1000)),
  MP_JWT_ISSUER: z.string().min(1).default('monitoring-platform'),
  MP_JWT_AUDIENCE: z.string().min(1).default('monitoring-platform-api'),
  /** Too many failed logins lock the account (401007, docs/rules.md#lockout). */
  MP_LOGIN_MAX_FAILURES: positiveInt(5),
  MP_LOGIN_FAILURE_WINDOW_SECONDS: positiveInt(900),
  MP_LOGIN_LOCK_SECONDS: positiveInt(1800),
  /**
   * The key prefix of the auth versions in Redis (MP_REDIS_URL; ADR 0119): the gateway's
   * MP_REDIS_PREFIX, so that the versions identity bumps are the ones the gateways read.
   */
  MP_REDIS_PREFIX: z.string().default('mp:rl'),
});

export type IdentityConfig = z.infer<typeof identityConfigSchema>;

export const parseIdentityConfig = (env: Record<string, string | undefined> = process.env): IdentityConfig => parseConfig(identityConfigSchema, env);
