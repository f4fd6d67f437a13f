import { queryTestDatabase, waitUntil, type ApiResponse } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { linksOf, startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../support/smtp.js';

// ADR 0090 through the HTTPS gateway, with a real SMTP server (TLS, authentication) in
// this process: notification rules per project, one mail per alarm transition with what a person
// on duty needs, the one-click acknowledge link (confirmation page, POST, single use, expiry,
// tampering), reminders and escalation while unacknowledged, retries and the delivery log, and
// who may make rules.
describe('notification rules and alarm mails', () => {
  let t: TestPlatform;
  let smtp: TestSmtpServer;
  let key: string;
  let projectId: string;
  let projectName: string;
  const h = (k = key) => ({ 'x-api-key': k });
  const must = async (res: Promise<ApiResponse>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
    return r.body.data;
  };
  let pointSeq = 0;
  const newPoint = async (name: string) =>
    (
      await must(
        t.api('POST', `/projects/${projectId}/points`, {
          headers: h(),
          body: {
            number: `NP-${++pointSeq}`,
            name,
            sensor_type: 'total_station',
            reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
            thresholds: { warning: 10, alarm: 20 },
          },
        }),
      )
    ).id as string;
  const write = (pointId: string, measuredAt: string, dz: number) =>
    must(
      t.api('POST', `/projects/${projectId}/data`, {
        headers: h(),
        body: { records: [{ point_id: pointId, measured_at: measuredAt, values: { dx: 0, dy: 0, dz } }] },
      }),
    );
  const rule = (body: Record<string, unknown>, k = key) => t.api('POST', `/projects/${projectId}/notification-rules`, { headers: h(k), body });
  const alarmOf = async (pointId: string) => (await must(t.api('GET', `/projects/${projectId}/alarms?point_id=${pointId}`, { headers: h() }))).items[0];
  const mailsTo = (address: string, kind?: string) => smtp.to(address).filter((m) => !kind || m.subject.endsWith(kind));
  const waitForMails = (address: string, n: number, kind?: string) =>
    waitUntil(() => mailsTo(address, kind).length >= n && mailsTo(address, kind), { timeoutMs: 30_000, message: `${n} mails to ${address}` });
  // The link's path on the test's own base URL (the mail names the gateway's public URL).
  const ackPath = (mail: ReceivedMail) => linksOf(mail).ack.slice(linksOf(mail).ack.indexOf('/alarm-ack/'));
  const form = (comment?: string) => ({
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: comment === undefined ? '' : `comment=${encodeURIComponent(comment)}`,
  });
  const log = async (ruleId: string) => (await must(t.api('GET', `/notification-rules/${ruleId}/deliveries?limit=100`, { headers: h() }))).items;
  const webhooksSql = <R = Record<string, unknown>>(sql: string, params: unknown[] = []) => queryTestDatabase<R>(t.db.url, sql, params);

  beforeAll(async () => {
    // a.flaky is refused with 451 at its first offer; nobody@ with 550 always
    smtp = await startSmtpServer({
      refuse: (address, offer) =>
        address === 'flaky@site.example' && offer === 1
          ? { code: 451, message: 'try again later' }
          : address === 'nobody@site.example'
            ? { code: 550, message: 'no such mailbox' }
            : null,
    });
    t = await startTestPlatform({
      MP_SMTP_URL: smtp.url,
      MP_MAIL_FROM: 'Site alarms <alarms@platform.example>',
      MP_NOTIFY_POLL_MS: '100',
      MP_NOTIFY_MIN_INTERVAL_SECONDS: '1',
      MP_NOTIFY_RETRY_BASE_MS: '50',
    });
    key = await t.apiKey(['project:read', 'project:write', 'data:read', 'data:write']);
    projectName = `Dam ${Date.now()}`;
    const project = await must(t.api('POST', '/projects', { headers: h(), body: { name: projectName, number: `D-${Date.now()}`, start_date: '2026-01-01' } }));
    projectId = project.id;
    await must(t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } }));
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await smtp?.close();
  });

  it('mails each recipient once when an alarm opens and once when its level rises, naming project, point, value, level and time, with both links', async () => {
    const pointId = await newPoint('Crest settlement C-1');
    const created = await must(
      rule({ name: 'Duty engineers', levels: ['warning', 'alarm'], recipients: [{ email: 'duty.a@site.example' }, { email: 'Duty.B@site.example' }] }),
    );
    expect(created).toMatchObject({
      project_id: projectId,
      name: 'Duty engineers',
      levels: ['warning', 'alarm'],
      recipients: [{ email: 'duty.a@site.example' }, { email: 'duty.b@site.example' }],
      reminder_interval_seconds: null,
      escalation: null,
      mail_configured: true,
    });
    expect(created.id).toMatch(/^ntr_[0-9a-z]{20}$/);

    await write(pointId, '2026-03-01T08:00:00+08:00', 12); // opens a warning alarm
    await write(pointId, '2026-03-01T09:00:00+08:00', 13); // same alarm, same level: no transition
    await write(pointId, '2026-03-01T10:00:00+08:00', 25.5); // rises to alarm
    const alarm = await alarmOf(pointId);
    for (const to of ['duty.a@site.example', 'duty.b@site.example']) {
      await waitForMails(to, 1, 'level rose');
      expect(mailsTo(to).map((m) => m.subject)).toEqual(
        expect.arrayContaining([`[WARNING] ${projectName} / Crest settlement C-1: alarm opened`, `[ALARM] ${projectName} / Crest settlement C-1: level rose`]),
      );
      expect(mailsTo(to)).toHaveLength(2);
    }
    const opened = mailsTo('duty.a@site.example', 'alarm opened')[0]!;
    expect(opened.from).toBe('"Site alarms" <alarms@platform.example>');
    expect(opened.text).toContain(`Project: ${projectName}`);
    expect(opened.text).toContain(`Point:   Crest settlement C-1 (${pointId})`);
    expect(opened.text).toContain('Value:   12');
    expect(opened.text).toContain('Level:   warning');
    expect(opened.text).toContain('Time:    2026-03-01T00:00:00.000Z (UTC)');
    expect(opened.text).toContain(`Alarm:   ${alarm.alarm_id}`);
    expect(opened.html).toContain('Acknowledge this alarm');
    const links = linksOf(opened);
    expect(links.point).toBe(`${new URL(t.platform.gateway.baseUrl).origin}/console#/points/${pointId}`);
    expect(links.ack).toMatch(/\/v3\/alarm-ack\/ntf_[0-9a-z]{20}\.\d+\.[A-Za-z0-9_-]{43}$/);
    const rose = mailsTo('duty.b@site.example', 'level rose')[0]!;
    expect(rose.text).toContain('Value:   25.5');
    expect(rose.text).toContain('Level:   alarm');
    // every mail its own link
    expect(new Set(smtp.mails.map((m) => linksOf(m).ack)).size).toBe(smtp.mails.length);

    const entries = await log(created.id);
    expect(entries).toHaveLength(4);
    for (const e of entries) {
      expect(e).toMatchObject({ rule_id: created.id, alarm_id: alarm.alarm_id, status: 'sent', attempts: 1, last_error: null });
      expect(e.smtp_response).toMatch(/^250/);
      expect(e.id).toMatch(/^ntf_/);
    }
    expect(entries.map((e: { kind: string }) => e.kind).sort()).toEqual(['escalated', 'escalated', 'opened', 'opened']);
    // still exactly four after the rules' deliveries all went out
    expect(smtp.mails.filter((m) => m.subject.includes('Crest settlement C-1'))).toHaveLength(4);
  });

  it('acknowledges through the link as the recipient: a confirmation page first, then the POST; the link works once', async () => {
    const pointId = await newPoint('Gallery G-2');
    await must(rule({ name: 'Gallery crew', levels: ['alarm'], recipients: [{ email: 'crew.one@site.example' }, { email: 'crew.two@site.example' }] }));
    await write(pointId, '2026-03-02T08:00:00Z', 22);
    const [one] = await waitForMails('crew.one@site.example', 1);
    const [two] = await waitForMails('crew.two@site.example', 1);
    const alarmId = (await alarmOf(pointId)).alarm_id;

    // GET: the page, and nothing acknowledged
    const page = await t.api('GET', ackPath(one!));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(page.text).toContain('<form method="post">');
    expect(page.text).toContain('Gallery G-2');
    expect(page.text).toContain('crew.one@site.example');
    expect(page.text).not.toContain('<script');
    expect((await must(t.api('GET', `/alarms/${alarmId}`, { headers: h() }))).status).toBe('open');

    // a changed link: refused before anything is read, nothing changes
    const path = ackPath(one!);
    const tampered = path.slice(0, -1) + (path.endsWith('A') ? 'B' : 'A');
    for (const method of ['GET', 'POST']) {
      const res = await t.api(method, tampered, method === 'POST' ? form() : {});
      expect(res.status).toBe(404);
      expect(res.text).toContain('404021');
    }
    expect((await t.api('POST', `/alarm-ack/not-a-token`, form())).status).toBe(404);
    expect((await must(t.api('GET', `/alarms/${alarmId}`, { headers: h() }))).status).toBe('open');

    // POST: acknowledged as the recipient, with the comment
    const done = await t.api('POST', path, form('on my way'));
    expect(done.status).toBe(200);
    expect(done.text).toContain('Alarm acknowledged');
    const acked = await must(t.api('GET', `/alarms/${alarmId}`, { headers: h() }));
    expect(acked.status).toBe('acknowledged');
    expect(acked.acknowledged).toMatchObject({ by: { principal_type: 'recipient', principal_id: 'crew.one@site.example' }, comment: 'on my way' });
    expect(acked.history.at(-1)).toMatchObject({ action: 'acknowledged', by: { principal_type: 'recipient', principal_id: 'crew.one@site.example' } });

    // the same link again: 409020, for the page and the POST
    for (const method of ['GET', 'POST']) {
      const again = await t.api(method, path, method === 'POST' ? form() : {});
      expect(again.status).toBe(409);
      expect(again.text).toContain('409020');
    }
    // the other recipient's link: the alarm is no longer open (409010); that link is not used up
    const late = await t.api('POST', ackPath(two!), form());
    expect(late.status).toBe(409);
    expect(late.text).toContain('409010');
    expect((await t.api('GET', ackPath(two!))).status).toBe(200);
    const [entry] = (await log((await must(t.api('GET', `/projects/${projectId}/notification-rules`, { headers: h() }))).items[0].id)).filter(
      (e: { recipient: string }) => e.recipient === 'crew.one@site.example',
    );
    expect(entry.acknowledged_at).toBe(acked.acknowledged.at);
  });

  it('refuses an expired link, and a link of a deleted rule, without acknowledging', async () => {
    const pointId = await newPoint('Abutment A-3');
    const made = await must(
      rule({ name: 'Abutment', levels: ['alarm'], recipients: [{ email: 'abutment@site.example' }, { email: 'abutment.2@site.example' }] }),
    );
    await write(pointId, '2026-03-03T08:00:00Z', 30);
    const [mail] = await waitForMails('abutment@site.example', 1);
    const [mail2] = await waitForMails('abutment.2@site.example', 1);
    const alarmId = (await alarmOf(pointId)).alarm_id;
    // the link's time has passed (as if read days later)
    await webhooksSql(`UPDATE webhooks.notification_mails SET ack_expires_at = now() - interval '1 minute' WHERE recipient = 'abutment@site.example'`);
    const expired = await t.api('POST', ackPath(mail!), form());
    expect(expired.status).toBe(401);
    expect(expired.text).toContain('401020');
    expect((await must(t.api('GET', `/alarms/${alarmId}`, { headers: h() }))).status).toBe('open');

    expect((await t.api('DELETE', `/notification-rules/${made.id}`, { headers: h() })).body.data).toMatchObject({ id: made.id, deleted: true });
    const gone = await t.api('POST', ackPath(mail2!), form());
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('404021');
    expect((await must(t.api('GET', `/alarms/${alarmId}`, { headers: h() }))).status).toBe('open');
    expectError(await t.api('GET', `/notification-rules/${made.id}`, { headers: h() }), 404020, 'rule_id');
  });

  it('reminds while unacknowledged, tells the escalation list after the delay, and stops once acknowledged', async () => {
    const pointId = await newPoint('Spillway S-4');
    const quiet = await newPoint('Spillway S-5');
    const made = await must(
      rule({
        name: 'Spillway',
        levels: ['alarm'],
        recipients: [{ email: 'spill@site.example' }],
        reminder_interval_seconds: 1,
        escalation: { after_seconds: 2, recipients: [{ email: 'chief@site.example' }] },
      }),
    );
    expect(made).toMatchObject({ reminder_interval_seconds: 1, escalation: { after_seconds: 2, recipients: [{ email: 'chief@site.example' }] } });
    await write(pointId, '2026-03-04T08:00:00Z', 21);
    await waitForMails('spill@site.example', 2, 'still not acknowledged');
    const [escalation] = await waitForMails('chief@site.example', 1, 'not acknowledged in time');
    expect(escalation!.text).toContain('you are on its escalation list');
    // after the escalation the chief is reminded too
    await waitForMails('chief@site.example', 1, 'still not acknowledged');
    const reminder = mailsTo('spill@site.example', 'still not acknowledged')[0]!;
    expect(reminder.text).toMatch(/^Reminder 1: this alarm is still open/);

    const alarmId = (await alarmOf(pointId)).alarm_id;
    await must(t.api('POST', `/alarms/${alarmId}/acknowledge`, { headers: h(), body: { comment: 'seen' } }));
    await waitUntil(
      async () =>
        (await webhooksSql<{ status: string }>(`SELECT status FROM webhooks.notified_alarms WHERE alarm_id = $1`, [alarmId]))[0]?.status === 'acknowledged',
      { message: 'acknowledgement not taken' },
    );
    // mails already on their way when it was taken have arrived (a mail is marked sent after the server accepted it)
    await waitUntil(
      async () =>
        (
          await webhooksSql<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.notification_mails WHERE alarm_id = $1 AND status = 'pending'`, [alarmId])
        )[0]!.n === 0,
    );
    const before = mailsTo('spill@site.example').length + mailsTo('chief@site.example').length;
    // a second alarm's two reminders prove that rounds and intervals went by
    await write(quiet, '2026-03-04T09:00:00Z', 22);
    const second = (await alarmOf(quiet)).alarm_id;
    await waitUntil(() => smtp.mails.filter((m) => m.subject.includes('Spillway S-5') && m.subject.endsWith('still not acknowledged')).length >= 2, {
      timeoutMs: 30_000,
    });
    expect(
      mailsTo('spill@site.example').filter((m) => m.subject.includes('Spillway S-4')).length +
        mailsTo('chief@site.example').filter((m) => m.subject.includes('Spillway S-4')).length,
    ).toBe(before);
    await must(t.api('POST', `/alarms/${second}/acknowledge`, { headers: h(), body: {} }));
    const kinds = (await log(made.id)).filter((e: { alarm_id: string }) => e.alarm_id === alarmId).map((e: { kind: string }) => e.kind);
    expect(kinds).toContain('escalation');
    expect(kinds.filter((k: string) => k === 'escalation')).toHaveLength(1);
  });

  it('retries a mail the server defers (451) and logs a refused address (550) as failed', async () => {
    const pointId = await newPoint('Toe drain T-6');
    const made = await must(rule({ name: 'Retries', levels: ['alarm'], recipients: [{ email: 'flaky@site.example' }, { email: 'nobody@site.example' }] }));
    await write(pointId, '2026-03-05T08:00:00Z', 40);
    await waitForMails('flaky@site.example', 1);
    const entries = await waitUntil(async () => {
      const l = await log(made.id);
      return l.every((e: { status: string }) => e.status !== 'pending') && l;
    });
    const by = (to: string) => entries.find((e: { recipient: string }) => e.recipient === to);
    expect(by('flaky@site.example')).toMatchObject({ status: 'sent', attempts: 2 });
    expect(by('nobody@site.example')).toMatchObject({ status: 'failed', attempts: 1 });
    expect(by('nobody@site.example').last_error).toMatch(/550|no such mailbox/);
    expect(smtp.offered.get('flaky@site.example')).toBe(2);
    expect(mailsTo('nobody@site.example')).toHaveLength(0);
    const failed = (await must(t.api('GET', `/notification-rules/${made.id}/deliveries?status=failed`, { headers: h() }))).items;
    expect(failed.map((e: { recipient: string }) => e.recipient)).toEqual(['nobody@site.example']);
  });

  it('lets only those who may change the project and hold data:read and data:write make rules; refused rules mail nobody', async () => {
    const narrow = await t.apiKey(['project:read', 'project:write', 'data:read']);
    expectError(await rule({ name: 'x', levels: ['alarm'], recipients: [{ email: 'narrow@site.example' }] }, narrow), 401004);
    const reader = await t.apiKey(['project:read', 'data:read', 'data:write']);
    expectError(await rule({ name: 'x', levels: ['alarm'], recipients: [{ email: 'reader@site.example' }] }, reader), 401004);

    const token = await t.login();
    const make = async (username: string) => {
      const user = await must(
        t.api('POST', '/users', {
          headers: { authorization: `Bearer ${token}` },
          body: { username, password: `${username} password`, name: username, permissions: ['project:read', 'project:write', 'data:read', 'data:write'] },
        }),
      );
      const login = await must(t.api('POST', '/auth/login', { body: { username, password: `${username} password`, grant_type: 'password' } }));
      return { id: user.id as string, auth: { authorization: `Bearer ${login.access_token}` } };
    };
    const outsider = await make('rules.outsider');
    const viewer = await make('rules.viewer');
    await must(t.api('POST', `/projects/${projectId}/members`, { headers: h(), body: { user_id: viewer.id, role: 'viewer' } }));
    const body = { name: 'x', levels: ['alarm'], recipients: [{ email: 'outsider@site.example' }] };
    expectError(await t.api('POST', `/projects/${projectId}/notification-rules`, { headers: outsider.auth, body }), 403001, 'project_id');
    expectError(await t.api('GET', `/projects/${projectId}/notification-rules`, { headers: outsider.auth }), 403001, 'project_id');
    expectError(await t.api('POST', `/projects/${projectId}/notification-rules`, { headers: viewer.auth, body }), 403002, 'project_id');
    expect((await t.api('GET', `/projects/${projectId}/notification-rules`, { headers: viewer.auth })).status).toBe(200);
    expectError(await t.api('POST', '/projects/prj_00000000000000000000/notification-rules', { headers: h(), body }), 404001, 'project_id');

    // input
    expectError(await rule({ name: 'x', levels: ['alarm'], recipients: [{ email: 'not an address' }] }), 422103, 'recipients[0].email');
    expectError(await rule({ name: 'x', levels: ['loud'], recipients: [{ email: 'a@site.example' }] }), 422103, 'levels[0]');
    expectError(await rule({ name: 'x', levels: ['alarm'], recipients: [] }), 422101, 'recipients');
    expectError(
      await rule({ name: 'x', levels: ['alarm'], recipients: [{ email: 'a@site.example' }], reminder_interval_seconds: 700_000 }),
      400003,
      'reminder_interval_seconds',
    );

    // none of those rules exists, so an alarm mails only the rule that was made
    const pointId = await newPoint('Left bank L-7');
    const kept = await must(rule({ name: 'Left bank', levels: ['alarm'], recipients: [{ email: 'left@site.example' }] }));
    await write(pointId, '2026-03-06T08:00:00Z', 50);
    await waitForMails('left@site.example', 1);
    for (const refused of ['narrow@site.example', 'reader@site.example', 'outsider@site.example', 'a@site.example', 'not an address']) {
      expect(mailsTo(refused)).toHaveLength(0);
    }
    const names = (await must(t.api('GET', `/projects/${projectId}/notification-rules?limit=100`, { headers: h() }))).items.map(
      (r: { name: string }) => r.name,
    );
    expect(names).not.toContain('x');
    expect(names).toContain(kept.name);
  });
});

describe('notification rules without MP_SMTP_URL', () => {
  let t: TestPlatform;
  afterAll(async () => t?.stop());

  it('keeps the rules, says mail is not configured, and logs the mails as skipped', async () => {
    t = await startTestPlatform({ MP_NOTIFY_POLL_MS: '100' });
    const key = await t.apiKey(['project:read', 'project:write', 'data:read', 'data:write']);
    const h = { 'x-api-key': key };
    const project = (await t.api('POST', '/projects', { headers: h, body: { name: 'No mail', number: `NM-${Date.now()}`, start_date: '2026-01-01' } })).body
      .data;
    await t.api('PUT', `/projects/${project.id}/status`, { headers: h, body: { status: 'in_progress' } });
    const point = (
      await t.api('POST', `/projects/${project.id}/points`, {
        headers: h,
        body: {
          number: 'N-1',
          name: 'N-1',
          sensor_type: 'total_station',
          reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
          thresholds: { warning: 10, alarm: 20 },
        },
      })
    ).body.data;
    const made = await t.api('POST', `/projects/${project.id}/notification-rules`, {
      headers: h,
      body: { name: 'Kept', levels: ['alarm'], recipients: [{ email: 'kept@site.example' }] },
    });
    expect(made.status).toBe(200);
    expect(made.body.data.mail_configured).toBe(false);
    const list = (await t.api('GET', `/projects/${project.id}/notification-rules`, { headers: h })).body.data;
    expect(list).toMatchObject({ mail_configured: false, items: [{ id: made.body.data.id, name: 'Kept' }] });
    await t.api('POST', `/projects/${project.id}/data`, {
      headers: h,
      body: { records: [{ point_id: point.id, measured_at: '2026-03-01T00:00:00Z', values: { dz: 25 } }] },
    });
    const [entry] = await waitUntil(async () => {
      const items = (await t.api('GET', `/notification-rules/${made.body.data.id}/deliveries`, { headers: h })).body.data.items;
      return items.length > 0 && items;
    });
    expect(entry).toMatchObject({ status: 'skipped', recipient: 'kept@site.example', kind: 'opened', attempts: 0, sent_at: null });
    expect(entry.last_error).toMatch(/MP_SMTP_URL/);
  }, 180_000);
});
