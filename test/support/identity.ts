import https from 'node:https';
import { tmpdir } from 'node:os';
import { importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { identity } from '@mp/contracts';
import { parseGatewayConfig, startGateway, type RunningGateway } from '@mp/gateway';
import { type CallerContext, type PromiseClient } from '@mp/grpc';
import { createLogger, newMasterKey, SecretBox } from '@mp/kit';
import { httpsRequest, platformClient, queryTestDatabase, testCertificate, type ApiResponse } from '@mp/testing';
import { ALL_PERMISSIONS, type TestPlatform } from './platform.js';
import { startProcess, type StartedProcess } from './process.js';

/**
 * Helpers for the identity end-to-end tests: operator calls to the identity service (tenants,
 * plans, key rotation), a second gateway replica, tokens signed with the platform's real key, a
 * fetch that trusts the test certificate (for oauth4webapi), and the consent page's form.
 */

/** The limits startTestPlatform raises; a second gateway must count with the same ones. */
export const RAISED_LIMITS = {
  MP_LIMIT_API_PER_MINUTE: '100000',
  MP_LIMIT_AUTH_PER_MINUTE: '100000',
  MP_LIMIT_DATA_RECORDS_PER_MINUTE: '100000000',
  MP_LIMIT_REPORTS_PER_HOUR: '100000',
  MP_LIMIT_CONCURRENT: '10000',
};

export const systemContext = (): CallerContext => ({
  requestId: 'req_e2etesttesttesttest',
  tenantId: '',
  environment: 'live',
  principalId: 'operator',
  principalType: 'system',
  permissions: [],
});

/** Identity as the gateway calls it; calls with systemContext() carry the operator's credential. */
export function identityClient(t: TestPlatform): PromiseClient<identity.IdentityServer> {
  return platformClient<identity.IdentityServer>(
    identity.IdentityClient,
    identity.IdentityService,
    `127.0.0.1:${t.platform.ports.identity}`,
    t.platform.keys,
    'identity',
  );
}

export interface TestTenant {
  id: string;
  adminId: string;
  username: string;
  password: string;
  /** The administrator's caller context in one environment (as the gateway would send it). */
  context(environment?: 'live' | 'sandbox'): CallerContext;
}

let tenantCount = 0;

/** A tenant of its own (own counters, own data) on `plan`, created by an operator call. */
export async function createTenant(client: PromiseClient<identity.IdentityServer>, plan = 'standard'): Promise<TestTenant> {
  const n = ++tenantCount;
  const username = `admin.${process.pid}.${n}.${Date.now().toString(36)}`;
  const password = 'tenant admin password';
  const created = await client.createTenant({ name: `Tenant ${n}`, plan, adminUsername: username, adminPassword: password }, systemContext());
  const id = created.tenant!.id;
  const adminId = created.admin!.id;
  return {
    id,
    adminId,
    username,
    password,
    context: (environment = 'live') => ({
      requestId: 'req_e2etesttesttesttest',
      tenantId: id,
      environment,
      principalId: adminId,
      principalType: 'user',
      permissions: [...ALL_PERMISSIONS],
    }),
  };
}

/** An API key of the tenant, made without an HTTP sign-in (which would count against 429005). */
export async function tenantKey(
  client: PromiseClient<identity.IdentityServer>,
  tenant: TestTenant,
  permissions: string[],
  environment: 'live' | 'sandbox' = 'live',
): Promise<string> {
  return (await client.createApiKey({ name: `key of ${permissions.length} permissions`, permissions }, tenant.context(environment))).key;
}

export async function upsertPlan(
  client: PromiseClient<identity.IdentityServer>,
  name: string,
  features: string[],
  limits: Partial<identity.PlanLimits> = {},
): Promise<void> {
  await client.upsertPlan(
    { name, features, limits: { apiPerMinute: 0, dataRecordsPerMinute: 0, reportsPerHour: 0, concurrentRequests: 0, ...limits } },
    systemContext(),
  );
}

/**
 * A second gateway replica in front of the same services and the same Redis key prefix, as a
 * Kubernetes deployment with two gateway pods would run. `env` must hold the limits the first
 * one was started with.
 */
export async function startSecondGateway(
  t: TestPlatform,
  env: Record<string, string>,
): Promise<{ gateway: RunningGateway; base: string; sandboxBase: string }> {
  const config = parseGatewayConfig({
    MP_HTTPS_PORT: '0',
    MP_SANDBOX_HTTPS_PORT: '0',
    MP_BIND_HOST: '127.0.0.1',
    MP_IDENTITY_ADDR: `127.0.0.1:${t.platform.ports.identity}`,
    MP_PROJECTS_ADDR: `127.0.0.1:${t.platform.ports.projects}`,
    MP_WEBHOOKS_ADDR: `127.0.0.1:${t.platform.ports.webhooks}`,
    MP_MONITORING_DATA_ADDR: `127.0.0.1:${t.platform.ports.monitoringData}`,
    MP_REDIS_URL: process.env.MP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    MP_REDIS_PREFIX: `mpt:${t.stream.stream}`,
    ...env,
  });
  const gateway = await startGateway(config, createLogger('gateway-2', process.env.MP_LOG_LEVEL ?? 'warn'), {
    auth: t.platform.keys.authFor('gateway'),
    tls: await testCertificate(),
  });
  return { gateway, base: `https://127.0.0.1:${gateway.port}/v3`, sandboxBase: `https://127.0.0.1:${gateway.sandboxPort}/v3` };
}

/** A JSON call to any base URL (e.g. a second gateway) with the test CA. */
export function call(base: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
  return httpsRequest(`${base}${path}`, {
    method,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
}

/** A master key to start the platform with, so tests can sign tokens with the real signing key. */
export const testSecretsKey = newMasterKey;

/**
 * Signs a token with the platform's active signing key (read from the identity schema and
 * unsealed with the master key the platform was started with): how tests make an expired token
 * or one with a wrong audience that is otherwise genuine.
 */
export async function signWithPlatformKey(t: TestPlatform, secretsKey: string, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  const [row] = await queryTestDatabase<{ kid: string; private_jwk_sealed: string }>(
    t.db.url,
    'SELECT kid, private_jwk_sealed FROM identity.signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1',
  );
  const key = await importJWK(JSON.parse(new SecretBox(secretsKey).open(row!.private_jwk_sealed)) as JWK, 'EdDSA');
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: row!.kid, typ: 'at+jwt', ...header }).sign(key);
}

/**
 * fetch for oauth4webapi (its `customFetch`): Node's https with the test CA, since the gateway
 * serves a self-signed test certificate. Redirects are returned, not followed.
 */
export async function tlsFetch(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: URLSearchParams | string } = {},
): Promise<Response> {
  const ca = (await testCertificate()).cert;
  const body = init.body === undefined ? undefined : String(init.body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: init.method ?? 'GET',
        headers: { ...(init.headers ?? {}), ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
        ca,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, x);
          const status = res.statusCode ?? 0;
          resolve(new Response([204, 304].includes(status) ? null : Buffer.concat(chunks), { status, headers }));
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The hidden fields of the consent page's form and its CSRF cookie, as a browser would keep them. */
export function consentFormOf(res: ApiResponse): { requestId: string; csrfToken: string; cookie: string } {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(res.text)?.[1];
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = setCookie.map((c) => c.split(';')[0]!).find((c) => c.startsWith('mp_oauth_csrf_'));
  const requestId = field('request_id');
  const csrfToken = field('csrf_token');
  if (!requestId || !csrfToken || !cookie) throw new Error(`not a consent page (status ${res.status}): ${res.text.slice(0, 300)}`);
  return { requestId, csrfToken, cookie };
}

/** Posts the consent form the way a browser does (form-encoded, with the page's cookie). */
export function submitConsent(
  base: string,
  form: { requestId: string; csrfToken: string; cookie: string },
  fields: { decision: 'allow' | 'deny'; username?: string; password?: string },
  opts: { cookie?: string } = {},
): Promise<ApiResponse> {
  const body = new URLSearchParams({
    request_id: form.requestId,
    csrf_token: form.csrfToken,
    decision: fields.decision,
    username: fields.username ?? '',
    password: fields.password ?? '',
  });
  return httpsRequest(`${base}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: opts.cookie ?? form.cookie },
    rawBody: body.toString(),
  });
}

/** A free TCP port on 127.0.0.1 (for a private Redis). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as import('node:net').AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * A Redis server of the test's own (not the machine's shared one), so the test can stop it to
 * see what the gateway does when Redis is down. The test must stop it.
 */
export async function startPrivateRedis(port: number): Promise<StartedProcess> {
  const redis = startProcess('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()], {
    env: { PATH: process.env.PATH },
  });
  await redis.waitForOutput(/Ready to accept connections/, 15_000);
  return redis;
}

/**
 * An HTTPS receiver that holds every request until `release()` — a webhook target that keeps a
 * test delivery (and so the API request that triggered it) in flight for as long as a test needs.
 */
export async function startParkingReceiver(): Promise<{ url: string; arrived(n: number): Promise<void>; release(): void; close(): Promise<void> }> {
  const tls = await testCertificate();
  const parked: import('node:http').ServerResponse[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let count = 0;
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    req.resume();
    req.on('end', () => {
      parked.push(res);
      count++;
      for (const w of waiters.filter((w) => count >= w.n)) w.resolve();
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as import('node:net').AddressInfo).port;
  const release = () => {
    for (const res of parked.splice(0)) res.writeHead(200).end('ok');
  };
  return {
    url: `https://127.0.0.1:${port}/hook`,
    arrived: (n) => (count >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    release,
    close: () =>
      new Promise<void>((resolve) => {
        release();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
