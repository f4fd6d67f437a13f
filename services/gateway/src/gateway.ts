import type { AddressInfo, Server } from 'node:net';
import type { ServiceAuth } from '@mp/grpc';
import { listenError, type Logger } from '@mp/kit';
import { servingCertificate, validUntil, watchCertificate, type CertificatePair } from './serving-certificate.js';
import { createApp } from './app.js';
import { TrustedProxies } from './client-address.js';
import { createServiceClients } from './clients.js';
import type { GatewayConfig } from './config.js';
import { BodyBudget } from './body-budget.js';
import { createHttpsOnlyServer, type DrainableServer, type FrontDoorSettings } from './https-only.js';
import type { BodyLimits } from './middleware/read-body.js';
import { JwtVerifier } from './jwt-verifier.js';
import { BackendHealth } from './backend-health.js';
import { authVersionsFor, RateLimits, RedisAuthVersions } from '@mp/ratelimit';
import { CredentialCache } from './credential-cache.js';

export interface RunningGateway {
  port: number;
  sandboxPort: number;
  baseUrl: string;
  sandboxBaseUrl: string;
  /** PEM of the serving certificate (self-signed in local runs); after a reload, the new one. */
  readonly certificate: string;
  certificatePath: string | null;
  /**
   * Reads the certificate files again and serves a changed pair to new connections (SIGHUP; the
   * files are also looked at every MP_TLS_RELOAD_INTERVAL_MS). Resolves with whether it changed;
   * rejects, keeping the pair in use, when the new files cannot be used.
   */
  reloadCertificate(): Promise<{ reloaded: boolean; validUntil: string }>;
  /**
   * The rate-limit counters this gateway counts in (Redis, or this process's memory): the
   * one-process platform without Redis hands them to monitoring-data's import worker, so imports
   * and JSON writes share a tenant's data-record limit.
   */
  readonly limits: RateLimits;
  /** `mp_gateway_backend_up` and the credential cache's counters for the ops server's /metrics. */
  metrics(): Promise<{ contentType: string; text: string }>;
  /**
   * Stops accepting connections, lets the requests in flight finish (each answer then closes its
   * connection) and resolves when the last connection has ended (SIGTERM, ADR 0045).
   */
  drain(): Promise<void>;
  /** Closes everything at once, requests in flight too. */
  stop(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolvePort((server.address() as AddressInfo).port));
  });
}

/** The body limits of both ports; they share one budget, the process's memory (ADR 0017). */
function bodyLimitsOf(config: GatewayConfig): { bodyLimits: BodyLimits; authBodyLimits: BodyLimits } {
  const budget = new BodyBudget(config.MP_BODY_BUFFER_BUDGET_BYTES);
  const timeoutMs = config.MP_BODY_TIMEOUT_MS;
  return {
    bodyLimits: {
      limitBytes: config.MP_BODY_LIMIT_BYTES,
      budget,
      timeoutMs,
      tooLargeSuggestion: 'Split the data into several requests, or use a batch upload of at most 5 MB.',
    },
    authBodyLimits: {
      limitBytes: config.MP_AUTH_BODY_LIMIT_BYTES,
      budget,
      timeoutMs,
      tooLargeSuggestion: 'Send only the fields of the sign-in or token request; they fit in a few hundred bytes.',
    },
  };
}

function frontDoorOf(config: GatewayConfig, trustedProxies: TrustedProxies): FrontDoorSettings {
  return {
    trustedProxies,
    maxConnections: config.MP_MAX_CONNECTIONS,
    maxConnectionsPerAddress: config.MP_MAX_CONNECTIONS_PER_ADDRESS,
    firstByteTimeoutMs: config.MP_FIRST_BYTE_TIMEOUT_MS,
    tlsHandshakeTimeoutMs: config.MP_TLS_HANDSHAKE_TIMEOUT_MS,
    headersTimeoutMs: config.MP_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: config.MP_BODY_TIMEOUT_MS,
    keepAliveTimeoutMs: config.MP_KEEP_ALIVE_TIMEOUT_MS,
    lingeringCloseMs: config.MP_LINGERING_CLOSE_MS,
  };
}

/** Starts the HTTPS gateway: the live environment on one port, the sandbox on another. */
/**
 * `auth` is the gateway's service identity (its keyring and gRPC mTLS material); `tls` serves
 * HTTPS with this pair instead of MP_TLS_* files or the self-signed one in MP_DATA_DIR.
 */
export async function startGateway(
  config: GatewayConfig,
  logger: Logger,
  opts: { auth: ServiceAuth; tls?: { cert: string; key: string }; ready?: () => boolean },
): Promise<RunningGateway> {
  const serving = await servingCertificate(config, opts.tls);
  const tls = serving.current;

  const clients = createServiceClients(
    {
      identity: config.MP_IDENTITY_ADDR,
      projects: config.MP_PROJECTS_ADDR,
      webhooks: config.MP_WEBHOOKS_ADDR,
      monitoringData: config.MP_MONITORING_DATA_ADDR,
      reports: config.MP_REPORTS_ADDR,
    },
    opts.auth,
    config.MP_GRPC_IN_PROCESS,
  );
  const backendHealth = new BackendHealth(
    {
      identity: config.MP_IDENTITY_ADDR,
      projects: config.MP_PROJECTS_ADDR,
      webhooks: config.MP_WEBHOOKS_ADDR,
      'monitoring-data': config.MP_MONITORING_DATA_ADDR,
      reports: config.MP_REPORTS_ADDR,
    },
    opts.auth.tls,
  );
  const jwt = new JwtVerifier(clients);
  const limits = new RateLimits({
    ...(config.MP_REDIS_URL ? { redisUrl: config.MP_REDIS_URL } : {}),
    prefix: config.MP_REDIS_PREFIX,
    concurrency: config.MP_LIMIT_CONCURRENT,
    limits: {
      api: { points: config.MP_LIMIT_API_PER_MINUTE },
      data_records: { points: config.MP_LIMIT_DATA_RECORDS_PER_MINUTE },
      reports: { points: config.MP_LIMIT_REPORTS_PER_HOUR },
      auth: { points: config.MP_LIMIT_AUTH_PER_MINUTE },
    },
    onRedisError: (err) => logger.warn({ err }, 'rate-limit store unavailable; limiting per replica until it is back'),
  });
  if (!(await limits.ready())) logger.warn('Redis not reachable at start; rate limits apply per replica until it is');
  // The auth versions identity bumps (ADR 0119): Redis, or this process's memory in the embedded
  // default. A principal from an identity that bumps another store is never cached.
  const authVersions = authVersionsFor({
    redisUrl: config.MP_REDIS_URL,
    prefix: config.MP_REDIS_PREFIX,
    onError: (err) => logger.warn({ err }, 'auth versions unavailable; identity is asked on every request until they are back'),
  });
  if (authVersions instanceof RedisAuthVersions) await authVersions.ready();
  const credentials = new CredentialCache(authVersions, { maxEntries: config.MP_AUTH_CACHE_ENTRIES, ttlMs: config.MP_AUTH_CACHE_TTL_MS });

  const { bodyLimits, authBodyLimits } = bodyLimitsOf(config);
  const trustedProxies = new TrustedProxies(config.MP_TRUSTED_PROXIES);
  const frontDoor = frontDoorOf(config, trustedProxies);
  const servers: DrainableServer[] = [];
  const ready = opts.ready ?? (() => true);
  // Error documentation is served by the live base URL's host itself, at /docs (GET /docs/errors/{code},
  // public HTML), unless MP_DOCS_URL points elsewhere.
  const docsUrl = () => (config.MP_DOCS_URL ?? `${urls.live.replace(/\/v3$/, '')}/docs`).replace(/\/$/, '');
  const ports: Record<'live' | 'sandbox', number> = { live: 0, sandbox: 0 };
  const urls: Record<'live' | 'sandbox', string> = { live: '', sandbox: '' };
  for (const environment of ['live', 'sandbox'] as const) {
    const wanted = environment === 'live' ? config.MP_HTTPS_PORT : config.MP_SANDBOX_HTTPS_PORT;
    const app = createApp({
      environment,
      clients,
      jwt,
      credentials,
      ready,
      logger,
      docsUrl,
      bodyLimits,
      authBodyLimits,
      limits,
      webhookSourceAddresses: config.MP_WEBHOOK_SOURCE_ADDRESSES,
      trustedProxies,
      sendStallTimeoutMs: config.MP_SEND_STALL_TIMEOUT_MS,
      uploadTimeouts: { idleMs: config.MP_UPLOAD_IDLE_TIMEOUT_MS, totalMs: config.MP_UPLOAD_TIMEOUT_MS },
    });
    const server = createHttpsOnlyServer(tls, app.callback(), docsUrl, frontDoor);
    const setting = environment === 'live' ? 'MP_HTTPS_PORT' : 'MP_SANDBOX_HTTPS_PORT';
    const port = await listen(server, wanted, config.MP_BIND_HOST).catch((err: unknown) => {
      // the other port, already open, must not keep the process (or a test) running
      for (const open of servers) open.close();
      throw listenError(setting, config.MP_BIND_HOST, wanted, err);
    });
    ports[environment] = port;
    const configured = environment === 'live' ? config.MP_PUBLIC_BASE_URL : config.MP_PUBLIC_SANDBOX_BASE_URL;
    urls[environment] = (configured ?? `https://localhost:${port}/v3`).replace(/\/$/, '');
    servers.push(server);
  }
  const serve = (pair: CertificatePair) => {
    for (const server of servers) server.setCertificate(pair);
  };
  const stopWatching = watchCertificate(serving, config.MP_TLS_RELOAD_INTERVAL_MS, serve, logger);

  return {
    port: ports.live,
    sandboxPort: ports.sandbox,
    baseUrl: urls.live,
    sandboxBaseUrl: urls.sandbox,
    get certificate() {
      return serving.current.cert;
    },
    certificatePath: serving.path,
    limits,
    async reloadCertificate() {
      const next = serving.reread();
      if (next) serve(next);
      return { reloaded: next !== null, validUntil: validUntil(serving.current.cert) };
    },
    metrics: async () => {
      const health = await backendHealth.metrics();
      return { ...health, text: `${health.text}${credentials.metricLines().join('\n')}\n` };
    },
    async drain() {
      await Promise.all(servers.map((s) => s.drain()));
    },
    async stop() {
      stopWatching();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              if (!s.listening) return r();
              s.close(() => r());
              s.closeIdle();
            }),
        ),
      );
      backendHealth.close();
      await limits.close();
      await authVersions.close();
      clients.close();
    },
  };
}
