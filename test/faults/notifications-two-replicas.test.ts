import { queryTestDatabase, waitUntil } from '@mp/testing';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../support/smtp.js';
import { startSeparatePlatform, type SeparatePlatform } from './support/separate-processes.js';

// Two webhooks processes (the service that owns notifications, ADR 0090) on one database and one
// durable consumer, as two pods: alarms open and rise on six points at once, reminders fall due
// every second on both replicas' workers, and each step must reach each recipient exactly once —
// counted at a real SMTP server, and against the delivery log.
const POINTS = 6;
const RECIPIENTS = ['first@site.example', 'second@site.example'];

describe('alarm mails with two replicas of the webhooks service', () => {
  let p: SeparatePlatform;
  let smtp: TestSmtpServer;
  let key: string;
  const h = () => ({ 'x-api-key': key });
  const sql = <R>(text: string, params: unknown[] = []) => queryTestDatabase<R>(p.db.url, text, params);

  beforeAll(async () => {
    smtp = await startSmtpServer();
    p = await startSeparatePlatform(
      { webhooks: 2 },
      { MP_SMTP_URL: smtp.url, MP_NOTIFY_POLL_MS: '100', MP_NOTIFY_MIN_INTERVAL_SECONDS: '1', MP_NOTIFY_RETRY_BASE_MS: '50' },
    );
    const [gw] = p.of('gateway');
    const login = await p.api(gw!, 'POST', '/auth/login', { body: { ...p.admin, grant_type: 'password' } });
    const created = await p.api(gw!, 'POST', '/api-keys', {
      body: { name: 'duty', permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
      headers: { authorization: `Bearer ${login.body.data.access_token}` },
    });
    expect(created.status).toBe(200);
    key = created.body.data.key;
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
    await smtp?.close();
  });

  it('mails every opening, rise and reminder once per recipient', async () => {
    const [gw] = p.of('gateway');
    const must = async (method: string, path: string, body?: unknown) => {
      const r = await p.api(gw!, method, path, { headers: h(), ...(body !== undefined ? { body } : {}) });
      if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
      return r.body.data;
    };
    const project = await must('POST', '/projects', { name: 'Two replicas', number: 'TR-1', start_date: '2026-01-01' });
    await must('PUT', `/projects/${project.id}/status`, { status: 'in_progress' });
    const points: string[] = [];
    for (let i = 0; i < POINTS; i++) {
      const pt = await must('POST', `/projects/${project.id}/points`, {
        number: `TR-${i}`,
        name: `Point TR-${i}`,
        sensor_type: 'total_station',
        reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
        thresholds: { warning: 10, alarm: 20 },
      });
      points.push(pt.id);
    }
    const rule = await must('POST', `/projects/${project.id}/notification-rules`, {
      name: 'Everyone',
      levels: ['warning', 'alarm'],
      recipients: RECIPIENTS.map((email) => ({ email })),
      reminder_interval_seconds: 1,
    });
    const write = (measuredAt: string, dz: number) =>
      must('POST', `/projects/${project.id}/data`, { records: points.map((point_id) => ({ point_id, measured_at: measuredAt, values: { dz } })) });
    await write('2026-03-01T00:00:00Z', 12); // six warnings open
    await write('2026-03-01T01:00:00Z', 24); // six rise to alarm

    // every alarm's second reminder has reached both recipients
    const reminded = (m: ReceivedMail) => /^Reminder 2:/.test(m.text);
    await waitUntil(() => RECIPIENTS.every((to) => smtp.to(to).filter(reminded).length >= POINTS), { timeoutMs: 60_000, message: 'second reminders' });
    const alarms = (await must('GET', `/projects/${project.id}/alarms?limit=100`)).items as { alarm_id: string }[];
    expect(alarms).toHaveLength(POINTS);
    for (const a of alarms) await must('POST', `/alarms/${a.alarm_id}/acknowledge`, {});
    // everything either replica had under way has finished (a mail is marked sent after the server accepted it)
    await waitUntil(
      async () =>
        (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.notified_alarms WHERE rule_id = $1 AND status = 'acknowledged'`, [rule.id]))[0]!
          .n === POINTS &&
        (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.notification_mails WHERE rule_id = $1 AND status = 'pending'`, [rule.id]))[0]!.n ===
          0,
      { timeoutMs: 30_000 },
    );

    // one mail per (alarm, step, recipient) at the server
    const keyOf = (m: ReceivedMail) => `${/Alarm:\s+(alm_\w+)/.exec(m.text)?.[1]}|${m.subject}|${/^Reminder (\d+)/.exec(m.text)?.[1] ?? ''}|${m.to.join(',')}`;
    const keys = smtp.mails.map(keyOf);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    for (const to of RECIPIENTS) {
      expect(smtp.to(to).filter((m) => m.subject.endsWith('alarm opened'))).toHaveLength(POINTS);
      expect(smtp.to(to).filter((m) => m.subject.endsWith('level rose'))).toHaveLength(POINTS);
    }
    // and the log says the same: every row sent once, as many as the server received
    const rows = await sql<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM webhooks.notification_mails WHERE rule_id = $1 GROUP BY status`,
      [rule.id],
    );
    const sent = rows.find((r) => r.status === 'sent')?.n ?? 0;
    expect(sent).toBe(smtp.mails.length);
    expect(sent).toBeGreaterThanOrEqual(POINTS * RECIPIENTS.length * 4);
    const attempts = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhooks.notification_mails WHERE rule_id = $1 AND attempts <> 1 AND status = 'sent'`,
      [rule.id],
    );
    expect(attempts[0]!.n).toBe(0);
  }, 300_000);
});
