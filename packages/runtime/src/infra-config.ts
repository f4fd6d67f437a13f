import { z } from 'zod';
import { opsSettings, parseConfig, serviceAuthSettings } from '@mp/kit';

/**
 * Where a service finds its infrastructure. Each variable left unset selects the embedded
 * adapter: PGlite under MP_DATA_DIR for PostgreSQL, the in-process transport for NATS (only
 * valid when every service runs in one process), in-memory limits for Redis.
 */
export const infraSchema = z.object({
  MP_DATABASE_URL: z.string().url().optional(),
  MP_NATS_URL: z.string().optional(),
  MP_NATS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('MP_EVENTS'),
  MP_NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default('mp.events'),
  MP_REDIS_URL: z.string().optional(),
  MP_DATA_DIR: z.string().default('./.data'),
  MP_SECRETS_KEY: z.string().optional(),
  /** Hours a published event stays in its service's outbox before the relay deletes it. */
  MP_OUTBOX_RETENTION_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 365)
    .default(24),
  ...serviceAuthSettings,
  ...opsSettings,
});

/** MP_OUTBOX_RETENTION_HOURS as the relay takes it. */
export const outboxRetentionMs = (config: Pick<InfraConfig, 'MP_OUTBOX_RETENTION_HOURS'>): number => config.MP_OUTBOX_RETENTION_HOURS * 3600_000;

export type InfraConfig = z.infer<typeof infraSchema>;

export function parseInfraConfig(env: Record<string, string | undefined> = process.env): InfraConfig {
  return parseConfig(infraSchema, env);
}
