import { isIP } from 'node:net';
import { z } from 'zod';
import { envBoolean, envPort, lifecycleSettings, parseConfig, serviceAuthSettings } from '@mp/kit';

/** An address or CIDR block: `203.0.113.7`, `203.0.113.0/24`, `2001:db8::/48`. */
const isAddressOrBlock = (s: string) => {
  const [ip, bits, extra] = s.split('/');
  const family = isIP(ip ?? '');
  if (!family || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};

/** A comma-separated list of addresses and CIDR blocks; the refusal names the first entry that is neither. */
const addressList = () =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    )
    .superRefine((list, ctx) => {
      const bad = list.find((entry) => !isAddressOrBlock(entry));
      if (bad !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: `a comma-separated list of IP addresses or CIDR blocks, e.g. 203.0.113.7,2001:db8::/48 ("${bad.slice(0, 80)}" is neither)`,
        });
    });

export const gatewayConfigSchema = z.object({
  MP_HTTPS_PORT: envPort(8443),
  MP_SANDBOX_HTTPS_PORT: envPort(8444),
  MP_BIND_HOST: z.string().default('0.0.0.0'),
  MP_DATA_DIR: z.string().default('./.data'),
  /** Certificate and key files; when unset a self-signed pair is made in MP_DATA_DIR/tls. */
  MP_TLS_CERT_FILE: z.string().optional(),
  MP_TLS_KEY_FILE: z.string().optional(),
  /**
   * How often the gateway looks whether its certificate files changed (a renewed certificate, a
   * Secret updated in place) and serves the new pair to new connections; 0: only on SIGHUP.
   */
  MP_TLS_RELOAD_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** Public base URLs (…/v3); default https://localhost:<port>/v3. */
  MP_PUBLIC_BASE_URL: z.string().url().optional(),
  MP_PUBLIC_SANDBOX_BASE_URL: z.string().url().optional(),
  /**
   * The addresses webhook deliveries leave from (the operator's egress: NAT gateway, proxy), comma
   * separated, as receivers should permit them; shown in the console and by GET /system/config.
   */
  MP_WEBHOOK_SOURCE_ADDRESSES: addressList(),
  /**
   * The reverse proxies (ingress controller, load balancer) in front of the gateway whose
   * X-Forwarded-For is believed, comma separated; from anyone else the header is ignored (ADR 0075).
   */
  MP_TRUSTED_PROXIES: addressList(),
  /** Where error documentation lives: `{docs_url}/errors/<code>`; defaults to the live base URL. */
  MP_DOCS_URL: z.string().url().optional(),
  MP_IDENTITY_ADDR: z.string().default('127.0.0.1:50051'),
  MP_PROJECTS_ADDR: z.string().default('127.0.0.1:50052'),
  MP_WEBHOOKS_ADDR: z.string().default('127.0.0.1:50055'),
  MP_MONITORING_DATA_ADDR: z.string().default('127.0.0.1:50053'),
  MP_REPORTS_ADDR: z.string().default('127.0.0.1:50054'),
  /**
   * A call to a service in this same process (the embedded default) skips the network: same
   * encoding, caller context and policy, no HTTP/2 or TLS (ADR 0125). False: every call over the
   * network, as between pods (for comparing the two; bench/gateway).
   */
  MP_GRPC_IN_PROCESS: envBoolean(true),
  /** Redis shared by gateway replicas for rate limits; unset → per-process memory (embedded). */
  MP_REDIS_URL: z.string().optional(),
  MP_REDIS_PREFIX: z.string().default('mp:rl'),
  /**
   * The credential cache of each replica (ADR 0119): API-key and session checks with the caller's
   * permissions and plan, used only while the tenant's auth versions in Redis (the embedded default:
   * in memory) are unchanged. Entries kept at most (0 turns the cache off), and how long one is used at most.
   */
  MP_AUTH_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  MP_AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** Operator defaults of the rate limits (per-tenant plans may override; docs/rules.md#limits). */
  MP_LIMIT_API_PER_MINUTE: z.coerce.number().int().positive().default(100),
  MP_LIMIT_DATA_RECORDS_PER_MINUTE: z.coerce.number().int().positive().default(500),
  MP_LIMIT_REPORTS_PER_HOUR: z.coerce.number().int().positive().default(10),
  MP_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().positive().default(10),
  MP_LIMIT_CONCURRENT: z.coerce.number().int().positive().default(50),
  /** Request body limit (5 MB, docs/rules.md#body-limit). */
  MP_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  ...serviceAuthSettings,
  ...lifecycleSettings,

  // The front door (ADR 0017): what an unauthenticated or slow client can make one gateway
  // process hold. Timeouts in milliseconds; 0 as a connection cap turns that cap off.
  /** Body limit of the anonymous endpoints (login, refresh, logout, OAuth token and consent form). */
  MP_AUTH_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /** Bytes of request bodies buffered at once across all requests of the process (503002 past it). */
  MP_BODY_BUFFER_BUDGET_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  /** Open connections per process (live and sandbox ports each), and per client address. */
  MP_MAX_CONNECTIONS: z.coerce.number().int().nonnegative().default(4096),
  MP_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().nonnegative().default(256),
  /** From connect to the first byte (the TLS ClientHello). */
  MP_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  MP_TLS_HANDSHAKE_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** From the handshake (or a later request's first byte) to the end of the request headers. */
  MP_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  /** From the moment the gateway starts reading a body (after authentication) to its last byte. */
  MP_BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * A logger file upload (POST /projects/{id}/data/imports) is not bound by the request time above
   * (a 200 MB file over a slow link takes longer): it is cut when no byte arrives for
   * MP_UPLOAD_IDLE_TIMEOUT_MS, or after MP_UPLOAD_TIMEOUT_MS in all (1 h: 200 MB at 0.45 Mbit/s).
   */
  MP_UPLOAD_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  MP_UPLOAD_TIMEOUT_MS: z.coerce.number().int().positive().default(3_600_000),
  /** An idle keep-alive connection is closed after this (above a load balancer's usual 60 s). */
  MP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().positive().default(65_000),
  /** How long an unread body is still drained after the answer, so the client reads it instead of a reset. */
  MP_LINGERING_CLOSE_MS: z.coerce.number().int().positive().default(5_000),
  /**
   * A streamed answer (a report download) whose client takes nothing for this long is closed, and
   * its concurrency slot freed. The body goes out in 64 KiB pieces: about 2 KiB/s at least by default.
   */
  MP_SEND_STALL_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const parseGatewayConfig = (env: Record<string, string | undefined> = process.env) => parseConfig(gatewayConfigSchema, env);
