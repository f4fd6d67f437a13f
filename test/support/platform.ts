import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PERMISSIONS } from '@mp/contracts/vocabulary';
import { startPlatform, type RunningPlatform } from '@mp/launcher';
import { createLogger, type Logger } from '@mp/kit';
import { createTestDatabase, createTestStream, httpsRequest, testCertificate, type ApiResponse, type TestDatabase, type TestStream } from '@mp/testing';

export interface TestPlatform {
  platform: RunningPlatform;
  db: TestDatabase;
  stream: TestStream;
  base: string;
  sandboxBase: string;
  admin: { username: string; password: string };
  /** Calls the live (or sandbox) API with JSON and the test CA. */
  api(method: string, path: string, opts?: { body?: unknown; rawBody?: string; headers?: Record<string, string>; sandbox?: boolean }): Promise<ApiResponse>;
  /** Signs in as the administrator and creates an API key with the given permissions. */
  apiKey(permissions: string[], opts?: { sandbox?: boolean }): Promise<string>;
  login(opts?: { sandbox?: boolean }): Promise<string>;
  stop(): Promise<void>;
}

/** Every permission identifier (a key holding them all is an administrator's). */
export const ALL_PERMISSIONS: string[] = [...PERMISSIONS];

/**
 * The platform in distributed mode against the machine's real PostgreSQL and NATS JetStream, with a
 * database and stream of its own, every port chosen by the OS, private webhook targets allowed
 * (receivers run on 127.0.0.1) and the test CA trusted by the webhook sender.
 */
export async function startTestPlatform(env: Record<string, string> = {}, opts: { logger?: Logger } = {}): Promise<TestPlatform> {
  const db = await createTestDatabase();
  const stream = createTestStream();
  const tls = await testCertificate();
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-test-'));
  const caFile = join(dataDir, 'ca.pem');
  (await import('node:fs')).writeFileSync(caFile, tls.cert);
  const admin = { username: 'admin', password: 'correct horse battery staple' };
  const platform = await startPlatform({
    tls,
    logger: opts.logger ?? createLogger('test', process.env.MP_LOG_LEVEL ?? 'warn'),
    env: {
      MP_DATABASE_URL: db.url,
      MP_NATS_URL: stream.url,
      MP_NATS_STREAM: stream.stream,
      MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
      MP_DATA_DIR: dataDir,
      MP_HTTPS_PORT: '0',
      MP_SANDBOX_HTTPS_PORT: '0',
      MP_BIND_HOST: '127.0.0.1',
      MP_IDENTITY_GRPC_PORT: '0',
      MP_PROJECTS_GRPC_PORT: '0',
      MP_WEBHOOKS_GRPC_PORT: '0',
      MP_MONITORING_DATA_GRPC_PORT: '0',
      MP_REPORTS_GRPC_PORT: '0',
      MP_OPS_PORT: '0',
      MP_ADMIN_USERNAME: admin.username,
      MP_ADMIN_PASSWORD: admin.password,
      MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: caFile,
      // Real Redis with a key prefix of this run; limits raised so only the rate-limit tests,
      // which set their own, ever meet them.
      MP_REDIS_URL: process.env.MP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      MP_REDIS_PREFIX: `mpt:${stream.stream}`,
      MP_LIMIT_API_PER_MINUTE: '100000',
      MP_LIMIT_AUTH_PER_MINUTE: '100000',
      MP_LIMIT_DATA_RECORDS_PER_MINUTE: '100000000',
      MP_LIMIT_REPORTS_PER_HOUR: '100000',
      MP_LIMIT_CONCURRENT: '10000',
      ...env,
    },
  });
  const base = `https://127.0.0.1:${platform.gateway.port}/v3`;
  const sandboxBase = `https://127.0.0.1:${platform.gateway.sandboxPort}/v3`;
  const api: TestPlatform['api'] = (method, path, opts = {}) =>
    httpsRequest(`${opts.sandbox ? sandboxBase : base}${path}`, {
      method,
      ...(opts.headers ? { headers: opts.headers } : {}),
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      ...(opts.rawBody !== undefined ? { rawBody: opts.rawBody } : {}),
    });
  const tokens = new Map<boolean, string>();
  const login = async (opts: { sandbox?: boolean } = {}) => {
    const sandbox = opts.sandbox ?? false;
    const cached = tokens.get(sandbox);
    if (cached) return cached;
    const res = await api('POST', '/auth/login', { body: { ...admin, grant_type: 'password' }, sandbox });
    if (res.status !== 200) throw new Error(`login failed: ${res.text}`);
    tokens.set(sandbox, res.body.data.access_token);
    return res.body.data.access_token as string;
  };
  return {
    platform,
    db,
    stream,
    base,
    sandboxBase,
    admin,
    api,
    login,
    async apiKey(permissions, opts = {}) {
      const token = await login(opts);
      const res = await api('POST', '/api-keys', {
        body: { name: `test ${permissions.join(',')}`, permissions },
        headers: { authorization: `Bearer ${token}` },
        ...opts,
      });
      if (res.status !== 200) throw new Error(`api key creation failed: ${res.text}`);
      return res.body.data.key as string;
    },
    async stop() {
      await platform.stop();
      await db.drop();
      await stream.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Asserts the whole error envelope (docs/rules.md#error-envelope). */
export function expectError(res: ApiResponse, code: number, field: string | null = null): void {
  expect({ status: res.status, code: res.body?.code, field: res.body?.data?.field }).toEqual({ status: Math.floor(code / 1000), code, field });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(typeof res.body.data.detail).toBe('string');
  expect(typeof res.body.data.suggestion).toBe('string');
  expect(res.body.data.suggestion.length).toBeGreaterThan(0);
  expect(res.body.meta.request_id).toMatch(/^req_[0-9a-z]{20}$/);
  expect(res.headers['x-request-id']).toBe(res.body.meta.request_id);
  expect(new Date(res.body.meta.timestamp).toISOString()).toBe(res.body.meta.timestamp);
  expect(res.body.meta.documentation_url).toMatch(new RegExp(`/errors/${code}$`));
}
