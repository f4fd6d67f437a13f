import { z } from 'zod';
import type { StreamRetention } from '@mp/events';
import { lifecycleSettings, parseConfig, SecretBox, serviceAuthSettings } from '@mp/kit';

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
  /**
   * The event stream's limits (ADR 0046), applied when the stream is made and on every start
   * whose settings differ: hours a message is kept (0: no age limit), bytes kept (-1: no size
   * limit), and copies on a JetStream cluster (at most its number of servers).
   */
  MP_NATS_MAX_AGE_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 3650)
    .default(24 * 7),
  MP_NATS_MAX_BYTES: z.coerce
    .number()
    .int()
    .refine((n) => n === -1 || n >= 1024 * 1024, '-1 (no limit) or at least 1048576 (1 MiB)')
    .default(-1),
  MP_NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  MP_REDIS_URL: z.string().optional(),
  MP_DATA_DIR: z.string().default('./.data'),
  /** The master-key ring, newest first (ADR 0047); checked here so a bad key fails at boot, naming the setting. */
  MP_SECRETS_KEY: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().refine(isKeyRing, 'comma-separated keys of 32 bytes each, base64 (openssl rand -base64 32), newest first, none twice').optional(),
  ),
  /** Hours a published event stays in its service's outbox before the relay deletes it. */
  MP_OUTBOX_RETENTION_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 365)
    .default(24),
  ...serviceAuthSettings,
  ...lifecycleSettings,
});

/** The MP_NATS_* limits as the event transport takes them. */
export const streamRetention = (config: Pick<InfraConfig, 'MP_NATS_MAX_AGE_HOURS' | 'MP_NATS_MAX_BYTES' | 'MP_NATS_REPLICAS'>): StreamRetention => ({
  maxAgeMs: Math.round(config.MP_NATS_MAX_AGE_HOURS * 3600_000),
  maxBytes: config.MP_NATS_MAX_BYTES,
  replicas: config.MP_NATS_REPLICAS,
});

/** MP_OUTBOX_RETENTION_HOURS as the relay takes it. */
export const outboxRetentionMs = (config: Pick<InfraConfig, 'MP_OUTBOX_RETENTION_HOURS'>): number => config.MP_OUTBOX_RETENTION_HOURS * 3600_000;

function isKeyRing(value: string): boolean {
  try {
    new SecretBox(value);
    return true;
  } catch {
    return false;
  }
}

export type InfraConfig = z.infer<typeof infraSchema>;

export function parseInfraConfig(env: Record<string, string | undefined> = process.env): InfraConfig {
  return parseConfig(infraSchema, env);
}
