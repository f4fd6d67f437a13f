import { queryTestDatabase, waitUntil } from '@mp/testing';
import { startSeparatePlatform, type Replica, type SeparatePlatform } from './support/separate-processes.js';

// Many loggers writing at once to the same points, as on a real site: 16 writers, each sending
// writes of 100 records over the same 20 points through two gateways and two monitoring-data
// replicas (separate processes, real PostgreSQL and NATS). About 20 % of readings are over a
// threshold and the rest normal, so alarms open, escalate and clear by readings again and again;
// half the points also have a rate rule and a stale-data rule, whose scheduled check runs every
// 100 ms on both replicas meanwhile. Every write must be answered 200, every record stored once, no point
// may ever hold two active alarms of one rule, and each alarm transition must be raised as an
// event exactly once.
const WRITERS = 16;
const WRITES_PER_WRITER = 15;
const RECORDS_PER_WRITE = 100;
const POINTS = 20;

describe('concurrent writers crossing and re-crossing the alarm rules of the same points', () => {
  let p: SeparatePlatform;
  let key: string;
  let projectId: string;
  const pointIds: string[] = [];
  const sql = <R>(text: string, params: unknown[] = []) => queryTestDatabase<R>(p.db.url, text, params);
  const h = () => ({ 'x-api-key': key });

  beforeAll(async () => {
    p = await startSeparatePlatform({ gateway: 2, 'monitoring-data': 2 }, { MP_ALARM_STALE_CHECK_MS: '100' });
    const [gw] = p.of('gateway');
    const login = await p.api(gw!, 'POST', '/auth/login', { body: { ...p.admin, grant_type: 'password' } });
    expect(login.status).toBe(200);
    const created = await p.api(gw!, 'POST', '/api-keys', {
      body: { name: 'loggers', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
      headers: { authorization: `Bearer ${login.body.data.access_token}` },
    });
    expect(created.status).toBe(200);
    key = created.body.data.key;
    const project = await p.api(gw!, 'POST', '/projects', { headers: h(), body: { name: 'Dam crest', number: 'DC-1', start_date: '2026-01-01' } });
    expect(project.status).toBe(200);
    projectId = project.body.data.id;
    expect((await p.api(gw!, 'PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } })).status).toBe(200);
    for (let i = 0; i < POINTS; i++) {
      const point = await p.api(gw!, 'POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: {
          number: `DC-${String(i).padStart(2, '0')}`,
          name: `Crest ${i}`,
          sensor_type: 'gnss',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          thresholds: { warning: 10, alarm: 20 },
          // Half the points with the operator's default rules (thresholds, clearing after 3 normal
          // readings), half with every rule: clearing after 2, a rate rule, stale data after a minute.
          ...(i % 2
            ? {
                alarm_rules: {
                  clear_after_readings: 2,
                  rate_warning_mm_per_day: 500,
                  rate_alarm_mm_per_day: 2000,
                  rate_window_hours: 1,
                  expected_interval_seconds: 60,
                  stale_factor: 1,
                },
              }
            : {}),
        },
      });
      expect(point.status).toBe(200);
      pointIds.push(point.body.data.id);
    }
  }, 180_000);

  afterAll(async () => {
    await p?.stop();
  });

  it('answers every write 200, stores each record once, never holds two active alarms of a rule, and raises each transition once', async () => {
    const gateways = p.of('gateway');
    // A deterministic mix: readings i with i % 7 === 3 over the warning threshold, i % 13 === 5 over the alarm one.
    const dzOf = (i: number) => (i % 13 === 5 ? 24 : i % 7 === 3 ? 12 : (i % 5) - 2);
    const base = Date.parse('2026-03-01T00:00:00Z');
    const answers: { status: number; code?: number; message?: string }[] = [];
    const writer = async (w: number, gw: Replica) => {
      for (let k = 0; k < WRITES_PER_WRITER; k++) {
        // Even writers write to the points with the default rules, odd ones to those with every
        // rule (the rules' stale-data watch rows, locked in point order, would queue the writes).
        const mine = pointIds.filter((_, i) => i % 2 === w % 2);
        const records = Array.from({ length: RECORDS_PER_WRITE }, (_, j) => {
          // Each writer's readings of a point interleave in time with every other writer's.
          const slot = (k * WRITERS + w) * (RECORDS_PER_WRITE / mine.length) + Math.floor(j / mine.length);
          return {
            point_id: mine[j % mine.length],
            measured_at: new Date(base + slot * 60_000).toISOString(),
            values: { dx: 0, dy: 0, dz: dzOf(slot + j) },
          };
        });
        const res = await p.api(gw, 'POST', `/projects/${projectId}/data`, { headers: h(), body: { records } });
        answers.push({ status: res.status, ...(res.status === 200 ? {} : { code: res.body?.code, message: res.body?.message }) });
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w, gateways[w % gateways.length]!)));

    const failed = answers.filter((a) => a.status !== 200);
    expect({ failed: failed.slice(0, 5), count: failed.length }).toEqual({ failed: [], count: 0 });
    expect(answers).toHaveLength(WRITERS * WRITES_PER_WRITER);

    // Each accepted record stored exactly once.
    const [stored] = await sql<{ n: number; points_at: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT (point_id, measured_at))::int AS points_at FROM monitoring_data.data_records WHERE project_id = $1',
      [projectId],
    );
    expect(stored).toEqual({ n: WRITERS * WRITES_PER_WRITER * RECORDS_PER_WRITE, points_at: WRITERS * WRITES_PER_WRITER * RECORDS_PER_WRITE });

    // Never two active alarms of one point and rule (the index forbids it; this checks nothing slipped past).
    expect(
      await sql("SELECT point_id, rule, count(*)::int AS n FROM monitoring_data.alarms WHERE status <> 'cleared' GROUP BY point_id, rule HAVING count(*) > 1"),
    ).toEqual([]);

    // The alarms really moved: opened and cleared by the readings, on every point.
    const [moved] = await sql<{ opened: number; cleared: number; points: number }>(
      `SELECT count(*) FILTER (WHERE h.action = 'opened')::int AS opened, count(*) FILTER (WHERE h.action = 'cleared')::int AS cleared,
              count(DISTINCT a.point_id)::int AS points
         FROM monitoring_data.alarm_history h JOIN monitoring_data.alarms a ON a.id = h.alarm_id WHERE a.project_id = $1`,
      [projectId],
    );
    expect(moved!.points).toBe(POINTS);
    expect(moved!.opened).toBeGreaterThan(POINTS);
    expect(moved!.cleared).toBeGreaterThan(POINTS);

    // Each alarm's history is one life: opened once, first; cleared at most once, last.
    const broken = await sql<{ alarm_id: string; actions: string[] }>(
      `SELECT alarm_id, array_agg(action ORDER BY seq) AS actions FROM monitoring_data.alarm_history GROUP BY alarm_id
        HAVING count(*) FILTER (WHERE action = 'opened') <> 1 OR count(*) FILTER (WHERE action = 'cleared') > 1
            OR (array_agg(action ORDER BY seq))[1] <> 'opened'
            OR (count(*) FILTER (WHERE action = 'cleared') = 1 AND (array_agg(action ORDER BY seq DESC))[1] <> 'cleared')`,
    );
    expect(broken).toEqual([]);

    // One alarm.cleared event per clearing, never two for one alarm; every cleared alarm has its event.
    const clearedEvents = await sql<{ alarm_id: string; n: number }>(
      `SELECT (data::jsonb)->>'alarm_id' AS alarm_id, count(*)::int AS n FROM monitoring_data.outbox WHERE event_type = 'alarm.cleared' GROUP BY 1 ORDER BY 1`,
    );
    const clearedAlarms = await sql<{ alarm_id: string; n: number }>(
      `SELECT alarm_id, count(*)::int AS n FROM monitoring_data.alarm_history WHERE action = 'cleared' GROUP BY 1 ORDER BY 1`,
    );
    expect(clearedEvents).toEqual(clearedAlarms);

    // One data.abnormal per opening or escalation of a rate or stale alarm (threshold alarms are
    // raised by the write's own data.abnormal, one per write holding an abnormal reading).
    const [ruleEvents] = await sql<{ raised: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM monitoring_data.alarm_history h JOIN monitoring_data.alarms a ON a.id = h.alarm_id
                WHERE a.rule IN ('rate', 'stale') AND h.action IN ('opened', 'escalated')) AS raised,
              (SELECT count(*)::int FROM monitoring_data.outbox WHERE event_type = 'data.abnormal'
                AND (data::jsonb)->'records'->0->>'reason' ~ '^(rate|stale)') AS events`,
    );
    expect(ruleEvents!.events).toBe(ruleEvents!.raised);

    // And the relay publishes them all.
    await waitUntil(async () => (await sql<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_data.outbox WHERE dispatched_at IS NULL'))[0]!.n === 0, {
      timeoutMs: 60_000,
    });
  }, 300_000);
});
