import { z } from 'zod';
import { envPort, parseConfig } from '@mp/kit';

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
  /** Request body limit (spec §8: 5 MB). */
  MP_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const parseGatewayConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(gatewayConfigSchema, env);
