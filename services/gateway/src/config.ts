import { z } from 'zod';
import { envPort, parseConfig, serviceAuthSettings } from '@mp/kit';

export const gatewayConfigSchema = z.object({
  MP_HTTPS_PORT: envPort(8443),
  MP_SANDBOX_HTTPS_PORT: envPort(8444),
  MP_BIND_HOST: z.string().default('0.0.0.0'),
  MP_DATA_DIR: z.string().default('./.data'),
  /** Certificate and key files; when unset a self-signed pair is made in MP_DATA_DIR/tls. */
  MP_TLS_CERT_FILE: z.string().optional(),
  MP_TLS_KEY_FILE: z.string().optional(),
  /** Public base URLs (…/v3); default https://localhost:<port>/v3. */
  MP_PUBLIC_BASE_URL: z.string().url().optional(),
  MP_PUBLIC_SANDBOX_BASE_URL: z.string().url().optional(),
  /** Where error documentation lives: `{docs_url}/errors/<code>`; defaults to the live base URL. */
  MP_DOCS_URL: z.string().url().optional(),
  MP_IDENTITY_ADDR: z.string().default('127.0.0.1:50051'),
  MP_PROJECTS_ADDR: z.string().default('127.0.0.1:50052'),
  MP_WEBHOOKS_ADDR: z.string().default('127.0.0.1:50055'),
  MP_MONITORING_DATA_ADDR: z.string().default('127.0.0.1:50053'),
  /** Redis shared by gateway replicas for rate limits; unset → per-process memory (embedded). */
  MP_REDIS_URL: z.string().optional(),
  MP_REDIS_PREFIX: z.string().default('mp:rl'),
  /** Operator defaults of spec §8's limits (per-tenant plans may override). */
  MP_LIMIT_API_PER_MINUTE: z.coerce.number().int().positive().default(100),
  MP_LIMIT_DATA_RECORDS_PER_MINUTE: z.coerce.number().int().positive().default(500),
  MP_LIMIT_REPORTS_PER_HOUR: z.coerce.number().int().positive().default(10),
  MP_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().positive().default(10),
  MP_LIMIT_CONCURRENT: z.coerce.number().int().positive().default(50),
  /** Request body limit (spec §8: 5 MB). */
  MP_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  ...serviceAuthSettings,
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const parseGatewayConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(gatewayConfigSchema, env);
