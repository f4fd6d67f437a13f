import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePlatformKeys, keyFileSettings, type Party } from '@mp/grpc';
import { newMasterKey } from '@mp/kit';
import { createTestDatabase, createTestStream, httpsRequest, testCertificate, type ApiResponse, type TestDatabase, type TestStream } from '@mp/testing';
import { startProcess, type StartedProcess } from '../../support/process.js';
import { freePort } from './infra.js';

export type Service = 'gateway' | 'identity' | 'projects' | 'monitoring-data' | 'webhooks';

/** One running process of the platform: its ops port and, for a service, its gRPC port. */
export interface Replica {
  service: Service;
  name: string;
  index: number;
  proc: StartedProcess;
  opsPort: number;
  /** The gateway's live base URL (…/v3). */
  base?: string;
}

export interface SeparatePlatform {
  db: TestDatabase;
  stream: TestStream;
  admin: { username: string; password: string };
  /** The service keys every process was given (an operator's client is made with them). */
  keys: Awaited<ReturnType<typeof generatePlatformKeys>>;
  replicas: Replica[];
  of(service: Service): Replica[];
  /** GET on a replica's ops server. */
  ops(replica: Replica, path: string): Promise<{ status: number; text: string }>;
  /** Calls the live API through one gateway replica. */
  api(gateway: Replica, method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse>;
  /** Starts a stopped replica again, on its former gRPC port (a pod restarted by its Deployment), with `env` changed. */
  restart(replica: Replica, env?: Record<string, string>): Promise<Replica>;
  /** The environment every process gets (the chart's shared settings). */
  env: Record<string, string | undefined>;
  stop(): Promise<void>;
}

/** The gRPC port setting of each service. */
const GRPC_PORT: Record<Exclude<Service, 'gateway'>, string> = {
  identity: 'MP_IDENTITY_GRPC_PORT',
  projects: 'MP_PROJECTS_GRPC_PORT',
  'monitoring-data': 'MP_MONITORING_DATA_GRPC_PORT',
  webhooks: 'MP_WEBHOOKS_GRPC_PORT',
};

export function opsGet(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      })
      .on('error', reject);
  });
}

/**
 * Every service as its own process (services/<name>/dist/main.js), configured as the Helm chart
 * configures its pods: real PostgreSQL, NATS JetStream and Redis, one service key file per
 * process (`mp-operator keygen` layout, with mutual TLS), peers reached by address lists as
 * headless services resolve them, and `replicas` processes of each service. The gRPC ports are
 * chosen free before the start, since projects and monitoring-data each need the other's address.
 */
export async function startSeparatePlatform(replicas: Partial<Record<Service, number>> = {}, extraEnv: Record<string, string> = {}): Promise<SeparatePlatform> {
  const count = (s: Service) => replicas[s] ?? 1;
  const db = await createTestDatabase();
  const stream = createTestStream();
  const dir = mkdtempSync(join(tmpdir(), 'mp-separate-'));
  const tls = await testCertificate();
  writeFileSync(join(dir, 'tls.crt'), tls.cert);
  writeFileSync(join(dir, 'tls.key'), tls.key, { mode: 0o600 });
  const keys = await generatePlatformKeys({ mtls: true });
  keys.writeFiles(join(dir, 'keys'));
  const admin = { username: 'admin', password: 'separate processes 0123' };

  const ports: Record<Exclude<Service, 'gateway'>, number[]> = { identity: [], projects: [], 'monitoring-data': [], webhooks: [] };
  for (const s of Object.keys(ports) as (keyof typeof ports)[]) for (let i = 0; i < count(s); i++) ports[s].push(await freePort());
  const addr = (s: keyof typeof ports) => ports[s].map((p) => `127.0.0.1:${p}`).join(',');

  const base: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MP_DATABASE_URL: db.url,
    MP_NATS_URL: stream.url,
    MP_NATS_STREAM: stream.stream,
    MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
    MP_SECRETS_KEY: newMasterKey(),
    MP_DATA_DIR: dir,
    MP_GRPC_HOST: '127.0.0.1',
    MP_OPS_HOST: '127.0.0.1',
    MP_OPS_PORT: '0',
    MP_LOG_LEVEL: 'info',
    MP_IDENTITY_ADDR: addr('identity'),
    MP_PROJECTS_ADDR: addr('projects'),
    MP_MONITORING_DATA_ADDR: addr('monitoring-data'),
    MP_WEBHOOKS_ADDR: addr('webhooks'),
    // The gateways' rate limits and the auth versions identity bumps for their credential caches (ADR 0119).
    MP_REDIS_URL: process.env.MP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    MP_REDIS_PREFIX: `mpt:${stream.stream}`,
    ...extraEnv,
  };
  const own: Record<Service, Record<string, string>> = {
    identity: { MP_ADMIN_USERNAME: admin.username, MP_ADMIN_PASSWORD: admin.password },
    projects: {},
    'monitoring-data': {},
    webhooks: { MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', NODE_EXTRA_CA_CERTS: join(dir, 'tls.crt') },
    gateway: {
      MP_HTTPS_PORT: '0',
      MP_SANDBOX_HTTPS_PORT: '0',
      MP_BIND_HOST: '127.0.0.1',
      MP_TLS_CERT_FILE: join(dir, 'tls.crt'),
      MP_TLS_KEY_FILE: join(dir, 'tls.key'),
      MP_LIMIT_API_PER_MINUTE: '100000',
      MP_LIMIT_DATA_RECORDS_PER_MINUTE: '100000000',
      MP_LIMIT_CONCURRENT: '10000',
    },
  };

  const all: Replica[] = [];
  const start = async (service: Service, index: number, changed: Record<string, string> = {}): Promise<Replica> => {
    const env = { ...base, ...keyFileSettings(join(dir, 'keys'), service as Party), ...own[service], ...changed };
    if (service !== 'gateway') env[GRPC_PORT[service]] = String(ports[service][index]);
    const proc = startProcess(process.execPath, [`services/${service}/dist/main.js`], { env });
    const replica: Replica = { service, name: `${service}-${index}`, index, proc, opsPort: 0 };
    all.push(replica);
    const [, ops] = await proc.waitForOutput(new RegExp(`"ops_port":(\\d+)[^\\n]*${service} ops server listening`), 60_000);
    replica.opsPort = Number(ops);
    if (service === 'gateway') {
      const [, url] = await proc.waitForOutput(/"baseUrl":"([^"]+)"[^\n]*gateway listening/, 60_000);
      replica.base = url!.replace('localhost', '127.0.0.1');
    } else await proc.waitForOutput(new RegExp(`${service} service listening`), 60_000);
    return replica;
  };

  const p: SeparatePlatform = {
    db,
    stream,
    admin,
    keys,
    replicas: all,
    of: (service) => all.filter((r) => r.service === service),
    ops: (replica, path) => opsGet(replica.opsPort, path),
    api: (gateway, method, path, opts = {}) =>
      httpsRequest(`${gateway.base}${path}`, {
        method,
        ...(opts.headers ? { headers: opts.headers } : {}),
        ...(opts.body !== undefined ? { body: opts.body } : {}),
      }),
    restart: (replica, env) => start(replica.service, replica.index, env),
    env: base,
    async stop() {
      await Promise.all(all.map((r) => r.proc.stop('SIGKILL')));
      await db.drop();
      await stream.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Identity first (it makes the first administrator), then the services in parallel (each
    // migrates its own schema), then the gateways.
    await start('identity', 0);
    await Promise.all((['projects', 'monitoring-data', 'webhooks'] as const).flatMap((s) => ports[s].map((_, i) => start(s, i))));
    await Promise.all(Array.from({ length: count('gateway') }, (_, i) => start('gateway', i)));
  } catch (err) {
    await p.stop();
    throw err;
  }
  return p;
}
