import { createPgDatabase, migrate, type Database } from '@mp/db';
import { createLogger } from '@mp/kit';
import { createTestDatabase, type TestDatabase } from '@mp/testing';
import type { ReportsDeps } from '../src/deps.js';
import type { ReportMailer, ScheduledReportMail } from '../src/mailer.js';
import { migrations, SCHEMA } from '../src/migrations.js';
import { ReportScheduler } from '../src/scheduler.js';
import { nextPeriodEnd, periodStart } from '../src/periods.js';

// Scheduled reports (ADR 0109) on real PostgreSQL: two schedulers on two connection pools stand for
// two replicas; the clock is the service's Clock, moved by the test, so no test waits for time.
describe('report scheduler', () => {
  let tdb: TestDatabase;
  const pools: Database[] = [];
  let now = new Date('2026-03-02T16:01:00Z');
  const clock = { now: () => now };
  const logger = createLogger('test', 'silent');
  let wakes = 0;
  const requester = {
    tenantId: 'ten_00000000000000000001',
    environment: 'live',
    principalId: 'usr_00000000000000000001',
    principalType: 'user',
    permissions: [],
  };

  const replica = (mailer: ReportMailer | null = null) => {
    const db = createPgDatabase({ url: tdb.url, schema: SCHEMA, max: 2 });
    pools.push(db);
    // The scheduler reads and writes only its own tables; the sources are the worker's.
    const deps = { db, clock, logger, relay: { kick: () => undefined }, sources: null as never, wakeWorker: () => wakes++ } as ReportsDeps;
    return new ReportScheduler(deps, logger, { pollMs: 60_000, mailer });
  };
  const db = () => pools[0]!;
  const rows = async <T>(sql: string, params: unknown[] = []) => (await db().query<T & Record<string, unknown>>(sql, params)).rows;

  const addTemplate = async (id: string, name: string) => {
    await db().query(
      `INSERT INTO templates (id, tenant_id, environment, name, sections, point_ids, formats, created_at, updated_at)
       VALUES ($1, $2, 'live', $3, '{summary}', '{}', '{pdf}', now(), now())`,
      [id, requester.tenantId, name],
    );
  };
  const addSchedule = async (id: string, templateId: string, frequency: string, timeZone: string, nextRunAt: string, recipients: string[] = []) => {
    await db().query(
      `INSERT INTO report_schedules (id, tenant_id, environment, project_id, project_name, template_id, frequency, time_zone, recipients, tenant_name,
                                     requester, next_run_at, created_at, updated_at)
       VALUES ($1, $2, 'live', 'prj_00000000000000000001', 'Metro Line 4', $3, $4, $5, $6, 'Baugrund Nord GmbH', $7, $8, now(), now())`,
      [id, requester.tenantId, templateId, frequency, timeZone, recipients, JSON.stringify(requester), nextRunAt],
    );
  };
  const reportsOf = (scheduleId: string) =>
    rows<{
      id: string;
      title: string;
      period_from: string;
      period_to: string;
      time_zone: string;
      status: string;
      tenant_name: string;
      template: { id: string };
    }>('SELECT id, title, period_from, period_to, time_zone, status, tenant_name, template FROM reports WHERE schedule_id = $1 ORDER BY period_from', [
      scheduleId,
    ]);
  const iso = (v: unknown) => new Date(v as string).toISOString();

  beforeAll(async () => {
    tdb = await createTestDatabase();
    const first = createPgDatabase({ url: tdb.url, schema: SCHEMA, max: 2 });
    pools.push(first);
    await migrate(first, SCHEMA, migrations);
    await addTemplate('tpl_00000000000000000001', 'Weekly');
    await addTemplate('tpl_00000000000000000002', 'Monthly');
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await tdb?.drop();
  });

  it('computes weeks from Monday 00:00 and calendar months in the schedule zone, across daylight saving time', () => {
    // Created on Wednesday 2026-03-04 10:00 in Shanghai: the week ends on Monday 2026-03-09 00:00 there.
    expect(new Date(nextPeriodEnd('weekly', Date.parse('2026-03-04T02:00:00Z'), 'Asia/Shanghai')).toISOString()).toBe('2026-03-08T16:00:00.000Z');
    // Exactly at a period end, the next one is a week later.
    expect(new Date(nextPeriodEnd('weekly', Date.parse('2026-03-08T16:00:00Z'), 'Asia/Shanghai')).toISOString()).toBe('2026-03-15T16:00:00.000Z');
    // Berlin's March has 31 days and ends in summer time (UTC+2); it starts in winter time (UTC+1).
    const end = nextPeriodEnd('monthly', Date.parse('2026-03-15T12:00:00Z'), 'Europe/Berlin');
    expect(new Date(end).toISOString()).toBe('2026-03-31T22:00:00.000Z');
    expect(new Date(periodStart('monthly', end, 'Europe/Berlin')).toISOString()).toBe('2026-02-28T23:00:00.000Z');
    // A week that holds the change to summer time is 167 hours long.
    const weekEnd = nextPeriodEnd('weekly', Date.parse('2026-03-25T12:00:00Z'), 'Europe/Berlin');
    expect(new Date(weekEnd).toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect((weekEnd - periodStart('weekly', weekEnd, 'Europe/Berlin')) / 3600_000).toBe(167);
  });

  it('asks for each ended period exactly once when two replicas tick at the same time', async () => {
    // Monday 2026-03-02 00:00 in Shanghai.
    await addSchedule('rsc_00000000000000000001', 'tpl_00000000000000000001', 'weekly', 'Asia/Shanghai', '2026-03-01T16:00:00Z');
    const [a, b] = [replica(), replica()];
    now = new Date('2026-03-01T16:01:00Z');
    const before = wakes;
    const results = await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    expect(results.reduce((n, r) => n + r.asked, 0)).toBe(1);
    expect(wakes).toBeGreaterThan(before);
    const reports = await reportsOf('rsc_00000000000000000001');
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      title: 'Weekly: Metro Line 4, 2026-02-23 – 2026-03-01',
      time_zone: 'Asia/Shanghai',
      status: 'generating',
      tenant_name: 'Baugrund Nord GmbH',
    });
    expect(reports[0]!.template.id).toBe('tpl_00000000000000000001');
    expect(iso(reports[0]!.period_from)).toBe('2026-02-22T16:00:00.000Z');
    expect(iso(reports[0]!.period_to)).toBe('2026-03-01T16:00:00.000Z');
    const [s] = await rows<{ next_run_at: string; last_report_id: string }>('SELECT next_run_at, last_report_id FROM report_schedules WHERE id = $1', [
      'rsc_00000000000000000001',
    ]);
    expect(iso(s!.next_run_at)).toBe('2026-03-08T16:00:00.000Z');
    expect(s!.last_report_id).toBe(reports[0]!.id);
    // Nothing more is due until the next Monday in Shanghai.
    now = new Date('2026-03-08T15:59:00Z');
    expect((await a.tick()).asked).toBe(0);
    now = new Date('2026-03-08T16:00:00Z');
    expect((await b.tick()).asked).toBe(1);
    expect(await reportsOf('rsc_00000000000000000001')).toHaveLength(2);
    // Deleted: no more reports, however far the clock moves.
    await db().query('UPDATE report_schedules SET deleted_at = now() WHERE id = $1', ['rsc_00000000000000000001']);
    now = new Date('2026-03-30T00:00:00Z');
    expect((await a.tick()).asked).toBe(0);
  });

  it('catches up on every month it missed, one report per month, and skips a month whose template is gone', async () => {
    await addSchedule('rsc_00000000000000000002', 'tpl_00000000000000000002', 'monthly', 'Europe/Berlin', '2026-03-31T22:00:00Z');
    now = new Date('2026-06-15T08:00:00Z');
    expect((await replica().tick()).asked).toBe(3);
    const reports = await reportsOf('rsc_00000000000000000002');
    expect(reports.map((r) => [r.title, iso(r.period_from), iso(r.period_to)])).toEqual([
      ['Monthly: Metro Line 4, 2026-03', '2026-02-28T23:00:00.000Z', '2026-03-31T22:00:00.000Z'],
      ['Monthly: Metro Line 4, 2026-04', '2026-03-31T22:00:00.000Z', '2026-04-30T22:00:00.000Z'],
      ['Monthly: Metro Line 4, 2026-05', '2026-04-30T22:00:00.000Z', '2026-05-31T22:00:00.000Z'],
    ]);

    await db().query('UPDATE templates SET deleted_at = now() WHERE id = $1', ['tpl_00000000000000000002']);
    now = new Date('2026-07-01T08:00:00Z');
    expect((await replica().tick()).asked).toBe(1);
    expect(await reportsOf('rsc_00000000000000000002')).toHaveLength(3);
    const [s] = await rows<{ next_run_at: string; last_error: string }>('SELECT next_run_at, last_error FROM report_schedules WHERE id = $1', [
      'rsc_00000000000000000002',
    ]);
    expect(s!.last_error).toBe('Template tpl_00000000000000000002 was deleted; no report for 2026-06.');
    expect(iso(s!.next_run_at)).toBe('2026-07-31T22:00:00.000Z');
  });

  it('hands each generated scheduled report to the mailer once, across replicas, and only those with recipients', async () => {
    await addSchedule('rsc_00000000000000000003', 'tpl_00000000000000000001', 'weekly', 'UTC', '2026-07-06T00:00:00Z', [
      'site@example.com',
      'client@example.org',
    ]);
    await addSchedule('rsc_00000000000000000004', 'tpl_00000000000000000001', 'weekly', 'UTC', '2026-07-06T00:00:00Z');
    now = new Date('2026-07-06T00:05:00Z');
    expect((await replica().tick()).asked).toBe(2);
    const sent: ScheduledReportMail[] = [];
    const mailer: ReportMailer = { sendScheduledReport: async (m) => void sent.push(m) };
    // Not mailed while it is still generating.
    expect((await replica(mailer).tick()).mailed).toBe(0);
    await db().query(
      `UPDATE reports SET status = 'generated', generated_at = $1 WHERE schedule_id IN ('rsc_00000000000000000003', 'rsc_00000000000000000004')`,
      [now.toISOString()],
    );
    const [a, b] = [replica(mailer), replica(mailer)];
    await Promise.all([a.tick(), b.tick()]);
    expect(sent).toHaveLength(1);
    const [report] = await reportsOf('rsc_00000000000000000003');
    expect(sent[0]).toMatchObject({
      reportId: report!.id,
      scheduleId: 'rsc_00000000000000000003',
      recipients: ['site@example.com', 'client@example.org'],
      formats: ['pdf'],
      timeZone: 'UTC',
      title: 'Weekly: Metro Line 4, 2026-06-29 – 2026-07-05',
    });
    expect(await a.tick()).toEqual({ asked: 0, mailed: 0 });
    const [mailed] = await rows<{ mailed_at: string | null }>('SELECT mailed_at FROM reports WHERE id = $1', [report!.id]);
    expect(iso(mailed!.mailed_at)).toBe(now.toISOString());
  });

  it('leaves a report for the next tick when the mailer fails', async () => {
    await addSchedule('rsc_00000000000000000005', 'tpl_00000000000000000001', 'weekly', 'UTC', '2026-07-13T00:00:00Z', ['site@example.com']);
    now = new Date('2026-07-13T00:01:00Z');
    await replica().tick();
    await db().query(`UPDATE reports SET status = 'generated', generated_at = $1 WHERE schedule_id = 'rsc_00000000000000000005'`, [now.toISOString()]);
    const failing: ReportMailer = {
      sendScheduledReport: async () => {
        throw new Error('421 service not available');
      },
    };
    expect((await replica(failing).tick()).mailed).toBe(0);
    const sent: string[] = [];
    expect((await replica({ sendScheduledReport: async (m) => void sent.push(m.reportId) }).tick()).mailed).toBe(1);
    expect(sent).toEqual([(await reportsOf('rsc_00000000000000000005'))[0]!.id]);
  });
});
