import type { Database } from '@mp/db';
import { newId } from '@mp/kit';
import { startTestWebhooks, type TestWebhooks } from './support/service.js';

// The notifications consumer asks whether alarm events can change anything with one read for the
// events it handles at once (AlarmEventGate). A burst of alarm events of mixed kinds, as one write
// crossing thresholds on many points brings, must mail exactly the ones a rule listens to, record
// nothing for the others, and take fewer reads than events.
describe('alarm events asked together whether they change anything', () => {
  let t: TestWebhooks;
  const reads: number[] = [];
  const counting = (db: Database): Database => ({
    ...db,
    query: (sql, params, opts) => {
      if (sql.includes('AS e(i, ruled')) reads.push((params?.[0] as unknown[]).length);
      return db.query(sql, params, opts);
    },
  });

  beforeAll(async () => {
    t = await startTestWebhooks({}, { wrapDatabase: counting });
  });
  afterAll(() => t?.stop());

  const notifications = () => t.consumed('notifications');

  it('mails the alarms of the ruled project and level only, records nothing for the rest, in fewer reads than events', async () => {
    const ruled = newId('project');
    const unruled = newId('project');
    const ruleId = newId('notificationRule');
    await t.sql(
      `INSERT INTO webhooks.notification_rules (id, tenant_id, environment, project_id, name, levels, recipients, created_by, creator_permissions)
       VALUES ($1, $2, 'live', $3, 'Duty engineer', '{alarm}', '{duty@example.com,lead@example.com}', $4, '{data:read,data:write,project:write}')`,
      [ruleId, t.ctx.tenantId, ruled, t.ctx.principalId],
    );
    const raised = (project: string, level: 'warning' | 'alarm') => ({
      alarm_id: newId('alarm'),
      project_id: project,
      point_id: newId('point'),
      rule: 'threshold',
      level,
      channel: 'dz',
      status: 'open',
      reason: 'dz over the alarm level',
      by: null,
      automatic: true,
      comment: null,
      at: new Date().toISOString(),
      project_name: 'Dam',
      point_name: 'PZ-1',
      value: 25,
      data_id: null,
      measured_at: new Date().toISOString(),
    });
    const mailed = Array.from({ length: 6 }, () => raised(ruled, 'alarm'));
    const otherLevel = Array.from({ length: 6 }, () => raised(ruled, 'warning'));
    const otherProject = Array.from({ length: 6 }, () => raised(unruled, 'alarm'));
    const cleared = Array.from({ length: 6 }, () => ({ ...raised(ruled, 'alarm'), status: 'cleared' }));
    const before = reads.length;
    const published = [];
    for (let i = 0; i < 6; i++) {
      published.push(
        t.publish('alarm.opened', mailed[i]),
        t.publish('alarm.opened', otherLevel[i]),
        t.publish('alarm.opened', otherProject[i]),
        t.publish('alarm.cleared', cleared[i]),
      );
    }
    const events = await Promise.all(published);
    await notifications();

    const mails = await t.sql<{ alarm_id: string; recipient: string }>(
      'SELECT alarm_id, recipient FROM webhooks.notification_mails ORDER BY alarm_id, recipient',
    );
    expect(mails).toEqual(
      mailed
        .map((a) => a.alarm_id)
        .sort()
        .flatMap((alarm_id) => [
          { alarm_id, recipient: 'duty@example.com' },
          { alarm_id, recipient: 'lead@example.com' },
        ]),
    );
    const notified = await t.sql<{ alarm_id: string }>('SELECT alarm_id FROM webhooks.notified_alarms ORDER BY alarm_id');
    expect(notified.map((r) => r.alarm_id)).toEqual(mailed.map((a) => a.alarm_id).sort());
    // only the events that changed something are recorded as handled
    const handled = await t.sql<{ event_id: string }>('SELECT event_id FROM webhooks.notification_events ORDER BY event_id');
    const opened = new Set(mailed.map((a) => a.alarm_id));
    expect(handled.map((r) => r.event_id)).toEqual(
      events
        .filter((e) => e.event_type === 'alarm.opened' && opened.has((e.data as { alarm_id: string }).alarm_id))
        .map((e) => e.event_id)
        .sort(),
    );
    // every event was asked about once, several to a read
    const asked = reads.slice(before);
    expect(asked.reduce((a, b) => a + b, 0)).toBe(events.length);
    expect(asked.length).toBeLessThan(events.length);
  });

  it('a clearing of an alarm a rule mailed about stops its reminders (asked together with others that change nothing)', async () => {
    const [notified] = await t.sql<{ alarm_id: string; alarm: Record<string, unknown> }>(
      "SELECT alarm_id, alarm FROM webhooks.notified_alarms WHERE status = 'open' LIMIT 1",
    );
    expect(notified).toBeDefined();
    await Promise.all([
      t.publish('alarm.cleared', { ...notified!.alarm, status: 'cleared', reason: 'readings back within the limits' }),
      t.publish('alarm.cleared', { ...notified!.alarm, alarm_id: newId('alarm'), status: 'cleared' }),
    ]);
    await notifications();
    const [row] = await t.sql<{ status: string; next_reminder_at: string | null }>(
      'SELECT status, next_reminder_at FROM webhooks.notified_alarms WHERE alarm_id = $1',
      [notified!.alarm_id],
    );
    expect(row).toEqual({ status: 'cleared', next_reminder_at: null });
  });
});
