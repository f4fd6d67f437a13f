import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { webhooks } from '@mp/contracts';
import { createClient, generatePlatformKeys, keyFileSettings, type CallerContext, type Party, type PromiseClient } from '@mp/grpc';
import { newId, newMasterKey } from '@mp/kit';
import { createTestDatabase, createTestStream, queryTestDatabase, testCertificate, TEST_NATS_URL } from '@mp/testing';
import { startProcess, type StartedProcess } from '../../support/process.js';
import type { PrivateNats, PrivatePostgres } from './infra.js';
import type { CountingReceiver } from './receiver.js';

export interface FaultPlatform {
  dbUrl: string;
  ctx: CallerContext;
  projects: StartedProcess | null;
  webhooks: StartedProcess | null;
  /** Starts (or restarts) the projects service: the producer whose outbox relay publishes. */
  startProjects(): Promise<StartedProcess>;
  /** Starts (or restarts) the webhooks service; resolves once it serves gRPC. */
  startWebhooks(env?: Record<string, string>): Promise<StartedProcess>;
  client(): PromiseClient<webhooks.WebhooksServer>;
  createWebhook(name: string, url: string, retryInterval?: number): Promise<string>;
  /**
   * Commits events first..last to the projects service's outbox in one transaction, as its use
   * cases do (the relay then publishes them): event_id evt_<20 digits of n>.
   */
  writeEvents(first: number, last: number): Promise<void>;
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  streamMessages(): Promise<number>;
  stop(): Promise<void>;
}

export const eventId = (n: number) => `evt_${String(n).padStart(20, '0')}`;

/**
 * The producing service (projects) and the webhooks service as separate processes
 * (services/<name>/dist/main.js), on their own database and JetStream stream: the machine's
 * servers, or private ones the test may restart.
 */
export async function startFaultPlatform(opts: { postgres?: PrivatePostgres; nats?: PrivateNats } = {}): Promise<FaultPlatform> {
  const shared = opts.postgres ? null : await createTestDatabase();
  const dbUrl = shared ? shared.url : await opts.postgres!.createDatabase('mp_faults');
  const names = createTestStream();
  const natsUrl = opts.nats?.url ?? TEST_NATS_URL;
  const dir = mkdtempSync(join(tmpdir(), 'mp-faults-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, (await testCertificate()).cert);
  // Each process reads its own service key and mTLS files, as a pod mounts them.
  const keys = await generatePlatformKeys({ mtls: true });
  const keysDir = join(dir, 'keys');
  keys.writeFiles(keysDir);
  const identityOf = (party: Party) => keyFileSettings(keysDir, party);
  const base = {
    // every process its own free ops port (several run at once)
    MP_OPS_PORT: '0',
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MP_DATABASE_URL: dbUrl,
    MP_NATS_URL: natsUrl,
    MP_NATS_STREAM: names.stream,
    MP_NATS_SUBJECT_PREFIX: names.subjectPrefix,
    MP_SECRETS_KEY: newMasterKey(),
    MP_DATA_DIR: dir,
    MP_LOG_LEVEL: 'info',
  };
  const ctx: CallerContext = {
    requestId: newId('request'),
    tenantId: newId('tenant'),
    environment: 'live',
    principalId: newId('apiKey'),
    principalType: 'api_key',
    // project:read: its webhooks receive project.created (the subscription rule, ADR 0063)
    permissions: ['system:admin', 'project:read'],
  };
  let grpc: PromiseClient<webhooks.WebhooksServer> | null = null;

  const p: FaultPlatform = {
    dbUrl,
    ctx,
    projects: null,
    webhooks: null,
    async startProjects() {
      const proc = startProcess(process.execPath, ['services/projects/dist/main.js'], {
        env: { ...base, ...identityOf('projects'), MP_PROJECTS_GRPC_PORT: '0' },
      });
      p.projects = proc;
      await proc.waitForOutput(/projects service listening/, 60_000);
      return proc;
    },
    async startWebhooks(env = {}) {
      const proc = startProcess(process.execPath, ['services/webhooks/dist/main.js'], {
        env: {
          ...base,
          ...identityOf('webhooks'),
          MP_WEBHOOKS_GRPC_PORT: '0',
          MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          NODE_EXTRA_CA_CERTS: caFile,
          ...env,
        },
      });
      p.webhooks = proc;
      const [, port] = await proc.waitForOutput(/"port":(\d+),[^\n]*webhooks service listening/, 60_000);
      grpc?.close();
      grpc = createClient<webhooks.WebhooksServer>(webhooks.WebhooksClient, webhooks.WebhooksService, `127.0.0.1:${port}`, {
        auth: keys.authFor('gateway'),
        audience: 'webhooks',
      });
      return proc;
    },
    client() {
      if (!grpc) throw new Error('webhooks service not started');
      return grpc;
    },
    async createWebhook(name, url, retryInterval = 1) {
      const created = await p.client().createWebhook({ name, url, events: ['project.created'], retryPolicy: { maxRetries: 3, retryInterval } }, ctx);
      return created.webhook!.id;
    },
    async writeEvents(first, last) {
      await queryTestDatabase(
        dbUrl,
        `INSERT INTO projects.outbox (event_id, event_type, tenant_id, environment, occurred_at, data)
         SELECT 'evt_' || lpad(n::text, 20, '0'), 'project.created', $3, 'live', now(),
                jsonb_build_object('project_id', 'prj_' || lpad(n::text, 20, '0'), 'project_name', 'Fault drill ' || n, 'n', n)::text
           FROM generate_series($1::int, $2::int) AS n`,
        [first, last, ctx.tenantId],
      );
    },
    sql: (text, params = []) => queryTestDatabase(dbUrl, text, params),
    async streamMessages() {
      const nc = await connect({ servers: natsUrl });
      try {
        return (await (await nc.jetstreamManager()).streams.info(names.stream)).state.messages;
      } finally {
        await nc.close();
      }
    },
    async stop() {
      grpc?.close();
      await p.webhooks?.stop('SIGKILL');
      await p.projects?.stop('SIGKILL');
      if (shared) {
        await shared.drop();
        await names.drop();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return p;
}

/** Prints what each receiver got more than once (duplicates counted and reported). */
export function reportDuplicates(scenario: string, receivers: CountingReceiver[]): Record<string, number> {
  const counts: Record<string, number> = {};
  const lines = [`[${scenario}] duplicates (event_id acknowledged more than once):`];
  for (const r of receivers) {
    const dups = r.duplicates();
    counts[r.name] = dups.length;
    const extra = dups.reduce((n, [, times]) => n + times - 1, 0);
    lines.push(
      `  ${r.name}: ${r.accepted.size} distinct events acknowledged, ${dups.length} duplicated (${extra} extra deliveries)` +
        (dups.length
          ? `: ${dups
              .slice(0, 10)
              .map(([id, times]) => `${id}×${times}`)
              .join(', ')}${dups.length > 10 ? ', …' : ''}`
          : ''),
    );
  }
  console.log(lines.join('\n'));
  return counts;
}
