import https from 'node:https';
import { holdDatabaseLock, queryTestDatabase, testCertificate, startHttpsReceiver, waitUntil, type ApiResponse, type HttpsReceiver } from '@mp/testing';
import { startSeparatePlatform, type Replica, type SeparatePlatform } from './support/separate-processes.js';

// The platform as the chart runs it, every service its own process (two gateways,
// two monitoring-data replicas, one of each other service), against real PostgreSQL, NATS and
// Redis. A client writes monitoring data through both gateways while one process of each kind is
// killed (SIGKILL) or stopped (SIGTERM, a drain) and started again; the client retries a failed
// request with the same Idempotency-Key, as the API asks of it. Afterwards every accepted record is
// stored exactly once and every event reached the webhook receiver.
describe('the platform as separate processes, one of each kind killed mid-stream', () => {
  let p: SeparatePlatform;
  let receiver: HttpsReceiver;
  let key: string;
  let projectId: string;
  let pointId: string;
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const sql = <R>(text: string, params: unknown[] = []) => queryTestDatabase<R>(p.db.url, text, params);

  /** The gateways still running, in turn: a client behind a load balancer. */
  let turn = 0;
  const liveGateways = () => p.of('gateway').filter((g) => g.proc.child.exitCode === null && g.proc.child.signalCode === null);
  let retries = 0;
  /**
   * One API request as a careful client sends it: on a broken connection or a 502/503 it retries
   * the same request (same Idempotency-Key) through the next gateway, for up to 30 s.
   */
  async function send(method: string, path: string, body: unknown, idem: string): Promise<ApiResponse> {
    const deadline = Date.now() + 30_000;
    for (let attempt = 0; ; attempt++) {
      const gateways = liveGateways();
      const gw = gateways[turn++ % gateways.length]!;
      let res: ApiResponse | null = null;
      try {
        res = await p.api(gw, method, path, { body, headers: h({ 'idempotency-key': idem }) });
      } catch {
        res = null;
      }
      if (res && res.status !== 502 && res.status !== 503) return res;
      if (Date.now() > deadline) throw new Error(`${method} ${path} not answered in 30 s: ${res?.text ?? 'connection failed'}`);
      retries++;
      // The client's own back-off between retries, as a real client paces itself; it proves nothing.
      await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** Math.min(attempt, 5))));
    }
  }

  beforeAll(async () => {
    p = await startSeparatePlatform({ gateway: 2, 'monitoring-data': 2 });
    receiver = await startHttpsReceiver({ fallback: { status: 200 } });
    const [gw] = p.of('gateway');
    const login = await p.api(gw!, 'POST', '/auth/login', { body: { ...p.admin, grant_type: 'password' } });
    expect(login.status).toBe(200);
    const bearer = { authorization: `Bearer ${login.body.data.access_token}` };
    const permissions = ['system:admin', 'project:read', 'project:write', 'data:read', 'data:write'];
    const created = await p.api(gw!, 'POST', '/api-keys', { body: { name: 'separate processes', permissions }, headers: bearer });
    expect(created.status).toBe(200);
    key = created.body.data.key;
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await p?.stop();
  });

  it('serves each process’s own /livez and /readyz on its ops port; the public /readyz names nothing internal', async () => {
    expect(p.replicas.map((r) => r.name).sort()).toEqual([
      'gateway-0',
      'gateway-1',
      'identity-0',
      'monitoring-data-0',
      'monitoring-data-1',
      'projects-0',
      'webhooks-0',
    ]);
    for (const r of p.replicas) {
      expect({ name: r.name, live: await p.ops(r, '/livez'), ready: await p.ops(r, '/readyz') }).toEqual({
        name: r.name,
        live: { status: 200, text: 'ok\n' },
        ready: { status: 200, text: 'ready\n' },
      });
    }
    const [gw] = p.of('gateway');
    const publicReady = await p.api(gw!, 'GET', '/readyz');
    expect({ status: publicReady.status, data: publicReady.body.data }).toEqual({ status: 200, data: { status: 'ready' } });
    // Backend health is a metric of the gateway's ops server, not its readiness.
    const metrics = (await p.ops(gw!, '/metrics')).text;
    for (const backend of ['identity', 'projects', 'monitoring-data', 'webhooks']) expect(metrics).toContain(`mp_gateway_backend_up{backend="${backend}"} 1`);
    expect((await p.ops(p.of('webhooks')[0]!, '/metrics')).text).toContain('mp_webhooks_');
  });

  it('loses no accepted record and no event while one process of each kind is killed or drained', async () => {
    const [gw] = p.of('gateway');
    const hook = await send(
      'POST',
      '/webhooks',
      { name: 'all events', url: receiver.url, events: ['project.created', 'data.created'], retry_policy: { max_retries: 5, retry_interval: 1 }, active: true },
      'hook-1',
    );
    expect(hook.status).toBe(200);
    const project = await p.api(gw!, 'POST', '/projects', { headers: h(), body: { name: 'Separate processes', number: 'SP-1', start_date: '2026-01-01' } });
    expect(project.status).toBe(200);
    projectId = project.body.data.id;
    expect((await p.api(gw!, 'PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } })).status).toBe(200);
    const point = await p.api(gw!, 'POST', `/projects/${projectId}/points`, {
      headers: h(),
      body: {
        number: 'JC-01',
        name: 'Crown settlement',
        sensor_type: 'total_station',
        reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
        thresholds: { warning: 20, alarm: 30 },
      },
    });
    expect(point.status).toBe(200);
    pointId = point.body.data.id;

    // The kills, each once the stream has gone this far (writes answered).
    const byName = (name: string) => p.replicas.find((r) => r.name === name)!;
    const exits: Record<string, number | null> = {};
    const kill = async (r: Replica, signal: NodeJS.Signals, restart: boolean) => {
      exits[`${r.name} ${signal}`] = await r.proc.stop(signal);
      if (restart) await p.restart(r);
    };
    const plan: [number, () => Promise<void>][] = [
      [15, () => kill(byName('monitoring-data-0'), 'SIGKILL', false)],
      [30, () => kill(byName('gateway-0'), 'SIGTERM', false)],
      [45, () => kill(byName('webhooks-0'), 'SIGKILL', true)],
      [60, () => kill(byName('projects-0'), 'SIGTERM', true)],
      [75, () => kill(byName('identity-0'), 'SIGKILL', true)],
      [90, () => kill(byName('monitoring-data-1'), 'SIGTERM', false).then(() => p.restart(byName('monitoring-data-0')).then(() => undefined))],
    ];
    const WRITES = 120;
    let answered = 0;
    const kills: Promise<void>[] = [];
    const answers: ApiResponse[] = [];
    const projectsMade: string[] = [];
    let next = 0;
    const writer = async () => {
      while (next < WRITES) {
        const n = next++;
        const measuredAt = new Date(Date.UTC(2026, 2, 1) + n * 60_000).toISOString();
        const res = await send(
          'POST',
          `/projects/${projectId}/data`,
          { records: [{ point_id: pointId, measured_at: measuredAt, values: { dz: (n % 7) - 3 } }] },
          `data-${n}`,
        );
        answers.push(res);
        if (n % 20 === 0) {
          const made = await send('POST', '/projects', { name: `Stream project ${n}`, number: `SP-S${n}` }, `project-${n}`);
          expect(made.status).toBe(200);
          projectsMade.push(made.body.data.id);
        }
        answered++;
        while (plan.length && answered >= plan[0]![0]) kills.push(plan.shift()![1]());
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    await Promise.all(kills);

    // Every request was answered, after retries where a process was gone.
    expect(answers.map((a) => a.status)).toEqual(Array(WRITES).fill(200));
    // The drained processes exited cleanly; the killed ones by the signal.
    expect(exits).toEqual({
      'monitoring-data-0 SIGKILL': null,
      'gateway-0 SIGTERM': 0,
      'webhooks-0 SIGKILL': null,
      'projects-0 SIGTERM': 0,
      'identity-0 SIGKILL': null,
      'monitoring-data-1 SIGTERM': 0,
    });

    // Every accepted record stored once: one row per minute of the stream, none twice.
    const acceptedIds = answers.map((a) => a.body.data.records[0].data_id as string).sort();
    expect(new Set(acceptedIds).size).toBe(WRITES);
    const rows = await sql<{ id: string }>('SELECT id FROM monitoring_data.data_records WHERE project_id = $1 ORDER BY id', [projectId]);
    expect(rows.map((r) => r.id)).toEqual(acceptedIds);

    // Every event delivered: a data.created for each record, a project.created for each project.
    const delivered = (type: string) => receiver.requests.filter((r) => r.json?.event_type === type);
    await waitUntil(() => new Set(delivered('data.created').flatMap((r) => r.json.data.records.map((x: { data_id: string }) => x.data_id))).size >= WRITES, {
      timeoutMs: 60_000,
      message: 'not every data.created was delivered',
    });
    const deliveredIds = new Set(delivered('data.created').flatMap((r) => r.json.data.records.map((x: { data_id: string }) => x.data_id)));
    expect([...deliveredIds].sort()).toEqual(acceptedIds);
    // (as long as for data.created: an event the killed webhooks process had taken but not
    // acknowledged comes back only after the consumer's ack wait, 30 s after the kill)
    await waitUntil(() => projectsMade.every((id) => delivered('project.created').some((r) => r.json.data.project_id === id)), {
      timeoutMs: 60_000,
      message: 'not every project.created was delivered',
    });
    console.log(
      `[separate processes] ${WRITES} writes and ${projectsMade.length} projects answered with ${retries} client retries; ${receiver.requests.length} webhook requests`,
    );
  }, 210_000);

  it('drains a service on SIGTERM: the gRPC call in flight finishes before it exits', async () => {
    const [gw] = liveGateways();
    const md = p.of('monitoring-data').find((r) => r.proc.child.exitCode === null && r.proc.child.signalCode === null)!;
    // The only monitoring-data replica running holds the next write in its transaction: the test
    // locks the outbox table, so the write waits inside the call, visibly, in pg_stat_activity.
    const lock = await holdDatabaseLock(p.db.url, 'LOCK TABLE monitoring_data.outbox IN ACCESS EXCLUSIVE MODE');
    try {
      const write = p.api(gw!, 'POST', `/projects/${projectId}/data`, {
        headers: h(),
        body: { records: [{ point_id: pointId, measured_at: '2026-05-01T00:00:00Z', values: { dz: 2 } }] },
      });
      await waitUntil(
        async () =>
          (
            await sql<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%outbox%' AND datname = current_database()",
            )
          )[0]!.n > 0,
        { message: 'the write never reached the locked outbox' },
      );
      const exited = md.proc.stop('SIGTERM', 30_000);
      await waitUntil(async () => (await p.ops(md, '/readyz').catch(() => null))?.status === 503, { message: 'readyz never answered 503' });
      expect(md.proc.child.exitCode).toBeNull();
      await lock.release();
      const res = await write;
      expect(res.status).toBe(200);
      const dataId = res.body.data.records[0].data_id;
      expect(await sql('SELECT id FROM monitoring_data.data_records WHERE id = $1', [dataId])).toEqual([{ id: dataId }]);
      expect(await exited).toBe(0);
    } finally {
      await lock.release();
    }
    await p.restart(md);
    // Its gateway's channel reconnects (backing off meanwhile, as gRPC clients do).
    await waitUntil(async () => (await p.api(gw!, 'GET', `/projects/${projectId}/data?limit=1`, { headers: h() })).status === 200, {
      message: 'the gateway did not reach the restarted replica',
    });
  });

  it('drains a gateway on SIGTERM: not ready first, the request in flight answered, then exit 0', async () => {
    const gw = p.of('gateway').find((g) => g.proc.child.exitCode === null)!;
    const url = new URL(`${gw.base}/projects/${projectId}/data`);
    const body = JSON.stringify({ records: [{ point_id: pointId, measured_at: '2026-04-01T00:00:00Z', values: { dz: 1 } }] });
    const half = Math.floor(body.length / 2);
    // Expect: 100-continue tells the client when the gateway holds the request (headers read).
    const req = https.request(url, {
      method: 'POST',
      ca: (await testCertificate()).cert,
      agent: false,
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': String(body.length), expect: '100-continue' },
    });
    const answer = new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
      });
      req.on('error', reject);
    });
    await new Promise<void>((resolve) => req.once('continue', () => resolve()));
    req.write(body.slice(0, half));

    const exited = gw.proc.stop('SIGTERM', 30_000);
    // Readiness fails first, while the process still serves what it holds…
    await waitUntil(async () => (await p.ops(gw, '/readyz').catch(() => null))?.status === 503, { message: 'readyz never answered 503' });
    expect(gw.proc.child.exitCode).toBeNull();
    // …it takes no new connection…
    await expect(p.api(gw, 'GET', '/healthz')).rejects.toThrow();
    // …and the request in flight is answered in full, its connection then closed.
    req.end(body.slice(half));
    const res = await answer;
    expect({ status: res.status, connection: res.connection }).toEqual({ status: 200, connection: 'close' });
    const dataId = JSON.parse(res.text).data.records[0].data_id;
    expect(await sql('SELECT id FROM monitoring_data.data_records WHERE id = $1', [dataId])).toEqual([{ id: dataId }]);
    expect(await exited).toBe(0);
    expect(gw.proc.output()).toMatch(/draining: not ready[\s\S]*drained; exiting/);
  });
});
