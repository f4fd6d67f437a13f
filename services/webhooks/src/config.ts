import { z } from 'zod';
import { envBoolean, envPort, parseConfig } from '@mp/kit';
import { mailConfigSchema } from '@mp/mail';
import { infraSchema } from '@mp/runtime';
import type { NotificationOptions } from './notifications/start.js';

export const webhooksConfigSchema = infraSchema.extend({
  MP_WEBHOOKS_GRPC_PORT: envPort(50055),
  MP_GRPC_HOST: z.string().default('127.0.0.1'),
  /** `true` lets webhook URLs point at loopback/private addresses (tests, on-premises receivers). */
  MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: envBoolean(false),
  /** Per-attempt timeout (30 s, docs/rules.md#retry-policy). */
  MP_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
  /** Attempts in flight at once across all receivers. */
  MP_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(1024),
  /** Attempts in flight at once for one webhook (4 while it does not answer at all). */
  MP_WEBHOOK_CONCURRENCY_PER_WEBHOOK: z.coerce.number().int().min(4).max(10_000).default(64),
  /**
   * Attempts in flight at once for all webhooks of one tenant: a quarter of the slots by default,
   * so one tenant's slow receivers never hold the slots other tenants' deliveries need.
   */
  MP_WEBHOOK_CONCURRENCY_PER_TENANT: z.coerce.number().int().min(4).max(10_000).default(256),
  /** How often the per-webhook success rates (metric and alarm) are recomputed. */
  MP_WEBHOOK_STATS_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /**
   * Days a finished delivery (and its attempts) is kept; older ones are removed in small batches
   * every 10 minutes (ADR 0021). Pending deliveries are never removed.
   */
  MP_WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Where the mails' links point (the gateway's public base URLs, …/v3); default https://localhost:<port>/v3. */
  MP_PUBLIC_BASE_URL: z.string().url().default('https://localhost:8443/v3'),
  MP_PUBLIC_SANDBOX_BASE_URL: z.string().url().default('https://localhost:8444/v3'),
  /** Where the webhooks service checks a rule maker's access to the project. */
  MP_PROJECTS_ADDR: z.string().default('127.0.0.1:50052'),
  /** Where an acknowledge link acknowledges its alarm. */
  MP_MONITORING_DATA_ADDR: z.string().default('127.0.0.1:50053'),
  /** How often due mails, reminders and escalations are looked for (new alarm mails go at once). */
  MP_NOTIFY_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(5000),
  /** The shortest reminder interval and escalation delay a rule may have, in seconds. */
  MP_NOTIFY_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** How long an acknowledge link works, in hours. */
  MP_NOTIFY_ACK_LINK_HOURS: z.coerce
    .number()
    .min(0.001)
    .max(24 * 30)
    .default(72),
  /** Attempts per mail before it is logged as failed (a permanent 5xx answer fails at once). */
  MP_NOTIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
  /** Wait before the first retry of a mail; each later one waits four times longer. */
  MP_NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  // MP_SMTP_URL, MP_MAIL_FROM and NODE_EXTRA_CA_CERTS: the platform's mail settings (@mp/mail),
  // read alike by every service that mails (ADR 0090).
  ...mailConfigSchema.shape,
});

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;

export const parseWebhooksConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(webhooksConfigSchema, env);

/** The MP_SMTP_*, MP_MAIL_FROM, MP_PUBLIC_*, MP_NOTIFY_* settings as the notifications take them (ADR 0090). */
export const notificationOptions = (config: WebhooksConfig): NotificationOptions => ({
  ...(config.MP_SMTP_URL ? { smtpUrl: config.MP_SMTP_URL } : {}),
  mailFrom: config.MP_MAIL_FROM,
  publicUrls: { live: config.MP_PUBLIC_BASE_URL, sandbox: config.MP_PUBLIC_SANDBOX_BASE_URL },
  sources: { projects: config.MP_PROJECTS_ADDR, monitoringData: config.MP_MONITORING_DATA_ADDR },
  pollMs: config.MP_NOTIFY_POLL_MS,
  minIntervalSeconds: config.MP_NOTIFY_MIN_INTERVAL_SECONDS,
  ackLinkHours: config.MP_NOTIFY_ACK_LINK_HOURS,
  maxAttempts: config.MP_NOTIFY_MAX_ATTEMPTS,
  retryBaseMs: config.MP_NOTIFY_RETRY_BASE_MS,
});
