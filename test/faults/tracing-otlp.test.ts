import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  createTestStream,
  httpsRequest,
  startHttpsReceiver,
  testCertificate,
  TEST_NATS_URL,
  type HttpsReceiver,
  type TestDatabase,
  type TestStream,
} from '@mp/testing';
import { generatePlatformKeys, keyFileSettings } from '@mp/grpc';
import { newMasterKey } from '@mp/kit';
import { runOperatorCommand } from '@mp/operator';
import { dataProject, recordAt } from '../support/data-project.js';
import { startProcess, type StartedProcess } from '../support/process.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  links?: { traceId: string; spanId: string }[];
  attributes?: { key: string; value: { stringValue?: string } }[];
}

/** A span's string attributes as an object. */
const attributesOf = (span: OtlpSpan) => Object.fromEntries((span.attributes ?? []).map((a) => [a.key, a.value.stringValue]));

/** A small OTLP/HTTP (JSON) receiver: what a collector would be given. */
async function startOtlpReceiver() {
  const bodies: { path: string; type: string | undefined; json: any }[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', type: req.headers['content-type'], json: JSON.parse(text) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans(): (OtlpSpan & { service: string })[] {
      return bodies.flatMap((b) =>
        (b.json.resourceSpans ?? []).flatMap((rs: any) => {
          const service = rs.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue;
          return rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: OtlpSpan) => ({ ...s, service })));
        }),
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Proof of ADR 0035: `npm start`'s process with tracing on (OTEL_* variables, OTLP/HTTP JSON to a
// real receiver), against real PostgreSQL, NATS JetStream and Redis. One data write with a
// subscribed webhook yields one trace holding the gateway's request, the gRPC call to
// monitoring-data, its PostgreSQL statements, the relay's publish, the webhooks consumer and the
// HTTPS POST to the receiver.
describe('tracing: one trace from the client request to the webhook receiver (OTLP/HTTP)', () => {
  let dataDir: string;
  let db: TestDatabase;
  let stream: TestStream;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let receiver: HttpsReceiver;
  let proc: StartedProcess | null = null;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-tracing-'));
    writeFileSync(join(dataDir, 'receiver-ca.pem'), (await testCertificate()).cert);
    [db, otlp, receiver] = await Promise.all([createTestDatabase(), startOtlpReceiver(), startHttpsReceiver()]);
    stream = createTestStream();
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    await Promise.all([receiver?.close(), otlp?.close(), db?.drop(), stream?.drop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exports the whole path of a data write as one trace', async () => {
    const clean: Record<string, string | undefined> = { ...process.env };
    for (const k of Object.keys(clean)) if (k.startsWith('MP_') || k.startsWith('OTEL_') || k.startsWith('npm_')) delete clean[k];
    proc = startProcess(process.execPath, ['scripts/start.mjs'], {
      env: {
        ...clean,
        MP_DATA_DIR: dataDir,
        MP_DATABASE_URL: db.url,
        MP_NATS_URL: stream.url,
        MP_NATS_STREAM: stream.stream,
        MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
        MP_REDIS_URL: process.env.MP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        MP_REDIS_PREFIX: `mpt:${stream.stream}`,
        MP_HTTPS_PORT: '0',
        MP_SANDBOX_HTTPS_PORT: '0',
        MP_OPS_PORT: '0',
        MP_BIND_HOST: '127.0.0.1',
        MP_ADMIN_USERNAME: 'admin',
        MP_ADMIN_PASSWORD: 'correct horse battery staple',
        MP_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        MP_LOG_LEVEL: 'warn',
        NODE_EXTRA_CA_CERTS: join(dataDir, 'receiver-ca.pem'),
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'mp-under-test',
      },
    });
    const [, url] = await proc.waitForOutput(/Live API:\s+(https:\/\/\S+)/, 90_000);
    await proc.waitForOutput(/Tracing:\s+on, exporting to http:\/\/127\.0\.0\.1:\d+/);
    const base = url!.replace('localhost', '127.0.0.1');
    const ca = readFileSync(join(dataDir, 'tls', 'tls.crt'), 'utf8');
    const api = (method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
      httpsRequest(`${base}${path}`, { method, ca, ...opts });

    const login = await api('POST', '/auth/login', { body: { username: 'admin', password: 'correct horse battery staple', grant_type: 'password' } });
    expect(login.status).toBe(200);
    const keyRes = await api('POST', '/api-keys', {
      body: { name: 'tracing', permissions: ['system:admin', 'project:read', 'project:write', 'data:read', 'data:write'] },
      headers: { authorization: `Bearer ${login.body.data.access_token}` },
    });
    const h = { 'x-api-key': keyRes.body.data.key as string };
    expect((await api('POST', '/webhooks', { headers: h, body: { name: 'traced', url: receiver.url, events: ['data.created'], active: true } })).status).toBe(
      200,
    );
    const { projectId, pointId } = await dataProject(api, h);
    const write = await api('POST', `/projects/${projectId}/data`, { headers: h, body: { records: [recordAt(pointId, '2026-03-01T08:00:00+08:00')] } });
    expect(write.status).toBe(200);
    await receiver.waitFor(1, 30_000);

    // SIGINT stops the platform and exports what is buffered
    expect(await proc.stop('SIGINT')).toBe(0);
    expect(otlp.bodies.every((b) => b.path === '/v1/traces' && b.type === 'application/json')).toBe(true);
    const spans = otlp.spans();
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['mp-under-test']));

    const request = spans.find((s) => s.name === 'POST /v3/projects/:project_id/data' && s.kind === 2)!;
    expect(request).toBeDefined();
    const trace = spans.filter((s) => s.traceId === request.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const names = trace.map((s) => s.name);
    // gateway: the HTTPS request, its route, the rate limit in Redis
    expect(names).toEqual(expect.arrayContaining(['router - /v3/projects/:project_id/data', 'evalsha']));
    // the gRPC call, client side in the gateway and server side in monitoring-data
    const grpcServer = trace.find((s) => /WriteRecords$/.test(s.name) && s.kind === 2)!;
    const grpcClient = trace.find((s) => /WriteRecords$/.test(s.name) && s.kind === 3)!;
    expect(byId.get(grpcServer.parentSpanId!)).toBe(grpcClient);
    // PostgreSQL statements under the server span (the insert of the records and of the outbox row)
    const pgUnder = trace.filter((s) => s.name.startsWith('pg.query') && ancestors(s, byId).includes(grpcServer));
    expect(pgUnder.length).toBeGreaterThan(2);
    // the relay publish continues the gRPC call that wrote the event, the consumer the publish,
    // and the HTTPS POST to the receiver the consumer
    const publish = trace.find((s) => s.name === 'publish data.created' && s.kind === 4)!;
    expect(ancestors(publish, byId)).toContain(grpcServer);
    const receive = trace.find((s) => s.name === 'receive data.created' && s.kind === 5)!;
    expect(receive.parentSpanId).toBe(publish.spanId);
    // both carry the messaging attributes of the OpenTelemetry semantic conventions: the system and
    // the subject the event went to, and on the consumer the durable consumer's name
    const messaging = { 'messaging.system': 'nats', 'messaging.destination.name': `${stream.subjectPrefix}.data.created` };
    expect(attributesOf(publish)).toMatchObject({ ...messaging, 'messaging.operation.type': 'send', 'messaging.operation.name': 'publish' });
    expect(attributesOf(receive)).toMatchObject({
      ...messaging,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.consumer.group.name': 'webhooks',
    });
    const post = trace.find((s) => s.name === 'webhook POST' && s.kind === 3)!;
    expect(post.parentSpanId).toBe(receive.spanId);
    // every span of the trace hangs from the client's request
    for (const s of trace) expect([s, ...ancestors(s, byId)].at(-1)).toBe(request);
    // the ops server's scrapes and probes are not traced; the webhook's HTTPS request has no span
    // of its own besides the attempt's
    expect(spans.filter((s) => /livez|readyz|metrics/.test(s.name))).toEqual([]);
    expect(trace.filter((s) => s.kind === 3 && s.name === 'POST')).toEqual([]);
  });
});

// A standalone service process (services/<name>/dist/main.js, as a pod runs it) traces too,
// under its own service name, with its gRPC server spans and their PostgreSQL statements.
describe('tracing: a standalone service process', () => {
  let dir: string;
  let db: TestDatabase;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let proc: StartedProcess | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mp-tracing-identity-'));
    (await generatePlatformKeys({ mtls: false })).writeFiles(join(dir, 'keys'));
    [db, otlp] = await Promise.all([createTestDatabase(), startOtlpReceiver()]);
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    await Promise.all([otlp?.close(), db?.drop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports the spans of identity under service.name "identity"', async () => {
    proc = startProcess(process.execPath, ['services/identity/dist/main.js'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MP_DATA_DIR: dir,
        MP_DATABASE_URL: db.url,
        MP_NATS_URL: TEST_NATS_URL,
        MP_SECRETS_KEY: newMasterKey(),
        MP_IDENTITY_GRPC_PORT: '0',
        MP_OPS_PORT: '0',
        MP_LOG_LEVEL: 'info',
        ...(keyFileSettings(join(dir, 'keys'), 'identity') as Record<string, string>),
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
    });
    const [, port] = await proc.waitForOutput(/"port":(\d+),[^\n]*identity service listening/, 60_000);
    const operatorEnv = { ...keyFileSettings(join(dir, 'keys'), 'operator'), MP_IDENTITY_ADDR: `127.0.0.1:${port}` };
    const created = JSON.parse(await runOperatorCommand(['create-tenant', '--name', 'Traced Co', '--admin-username', 'traced-admin'], operatorEnv));
    expect(created.tenant.name).toBe('Traced Co');
    // SIGTERM: the process stops and exports what it holds
    expect(await proc.stop('SIGTERM')).toBe(0);

    const spans = otlp.spans();
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['identity']));
    const server = spans.find((s) => s.name === 'grpc.mp.identity.Identity/CreateTenant' && s.kind === 2)!;
    expect(server).toBeDefined();
    const statements = spans.filter((s) => s.traceId === server.traceId && s.name.startsWith('pg.query'));
    expect(statements.length).toBeGreaterThan(0);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const q of statements) expect(ancestors(q, byId)).toContain(server);
  });
});

function ancestors(s: OtlpSpan, byId: Map<string, OtlpSpan>): OtlpSpan[] {
  const out: OtlpSpan[] = [];
  for (let p = s.parentSpanId ? byId.get(s.parentSpanId) : undefined; p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) out.push(p);
  return out;
}
