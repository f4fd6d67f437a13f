import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pngImage, queryTestDatabase, sampleLogo, waitUntil } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';

// ADR 0107, 0108 through the HTTPS gateway: a project's time zone, the tenant's logo,
// reports shown in the zone with page numbers, the logo and no nearly blank page (pdftotext per
// page), and report schedules, whose scheduler (polling every 200 ms here) asks for a report
// once its period has ended and mails it, documents attached, to the schedule's list through a real
// SMTP server started here.
describe('reports a client can receive', () => {
  let t: TestPlatform;
  let smtp: TestSmtpServer;
  let key: string;
  let tenantName: string;
  let projectId: string;
  const dir = mkdtempSync(join(tmpdir(), 'mp-client-reports-'));
  const h = () => ({ 'x-api-key': key });
  const FROM = '2026-03-01T00:00:00Z';
  const TO = '2026-03-03T00:00:00Z';

  const waitDone = (id: string) =>
    waitUntil(
      async () => {
        const res = await t.api('GET', `/reports/${id}`, { headers: h() });
        return res.body.data.status !== 'generating' ? res.body.data : null;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: `report ${id} still generating` },
    );
  const pdfPages = async (reportId: string, name: string) => {
    const pdf = await t.api('GET', `/reports/${reportId}/file?format=pdf`, { headers: h() });
    expect(pdf.status).toBe(200);
    const path = join(dir, `${name}.pdf`);
    writeFileSync(path, pdf.bytes);
    const count = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path], { encoding: 'utf8' }))![1]);
    const pages = Array.from({ length: count }, (_, i) =>
      execFileSync('pdftotext', ['-layout', '-f', String(i + 1), '-l', String(i + 1), path, '-'], { encoding: 'utf8' }),
    );
    return { path, pages };
  };

  beforeAll(async () => {
    // gone@ is refused for good (550), as a mailbox that no longer exists
    smtp = await startSmtpServer({ refuse: (address) => (address === 'gone@example.org' ? { code: 550, message: 'no such mailbox' } : null) });
    t = await startTestPlatform({ MP_REPORTS_SCHEDULE_POLL_MS: '200', MP_SMTP_URL: smtp.url, MP_MAIL_FROM: 'Site reports <reports@platform.example>' });
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write', 'report:read', 'report:write']);
    tenantName = (await t.api('GET', '/me', { headers: h() })).body.data.tenant.name;
    const project = await t.api('POST', '/projects', {
      headers: h(),
      body: { name: 'Metro Line 4 tunnel', number: 'ML4-TZ', start_date: '2026-01-01', time_zone: 'Asia/Shanghai' },
    });
    expect(project.status).toBe(200);
    projectId = project.body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } })).status).toBe(200);
    const records: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const p = await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: {
          number: `JC-0${i + 1}`,
          name: `Crown settlement ${i + 1}`,
          sensor_type: 'total_station',
          reference: { x: 3512345.1 + i * 15, y: 512345.6 + (i % 3) * 6, z: 45.3 },
          thresholds: { warning: 5, alarm: 8 },
        },
      });
      expect(p.status).toBe(200);
      for (let k = 0; k < 48; k += 3) {
        const at = new Date(Date.parse(FROM) + k * 3600_000).toISOString();
        records.push({ point_id: p.body.data.id, measured_at: at, values: { dx: +(0.02 * k).toFixed(2), dy: -0.25, dz: +(-0.01 * k * (i + 1)).toFixed(2) } });
      }
    }
    expect((await t.api('POST', `/projects/${projectId}/data`, { headers: h(), body: { records } })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a time zone per project: UTC unless given, an IANA name checked on create and PATCH', async () => {
    const plain = await t.api('POST', '/projects', { headers: h(), body: { name: 'Plain project', number: 'TZ-UTC' } });
    expect(plain.body.data.time_zone).toBe('UTC');
    expect((await t.api('GET', `/projects/${projectId}`, { headers: h() })).body.data.time_zone).toBe('Asia/Shanghai');
    // The database's spelling is kept whatever the case sent.
    const patched = await t.api('PATCH', `/projects/${plain.body.data.id}`, { headers: h(), body: { time_zone: 'europe/berlin', version: 1 } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ time_zone: 'Europe/Berlin', version: 2 });
    const listed = (await t.api('GET', '/projects?q=Plain', { headers: h() })).body.data.items;
    expect(listed.map((p: { time_zone: string }) => p.time_zone)).toEqual(['Europe/Berlin']);
    for (const bad of ['Mars/Olympus', '+08:00', 'UTC+8']) {
      expectError(await t.api('POST', '/projects', { headers: h(), body: { name: 'Bad zone', number: `TZ-${bad}`, time_zone: bad } }), 422103, 'time_zone');
      expectError(await t.api('PATCH', `/projects/${plain.body.data.id}`, { headers: h(), body: { time_zone: bad } }), 422103, 'time_zone');
    }
    expectError(
      await t.api('POST', '/projects', { headers: h(), body: { name: 'Long zone', number: 'TZ-LONG', time_zone: 'A/'.repeat(40) } }),
      400003,
      'time_zone',
    );
    // Nothing was stored or changed by the refusals.
    expect((await t.api('GET', `/projects/${plain.body.data.id}`, { headers: h() })).body.data).toMatchObject({ time_zone: 'Europe/Berlin', version: 2 });
    expect((await t.api('GET', '/projects?q=zone', { headers: h() })).body.data.items).toEqual([]);
  });

  it("uploads the tenant's logo (system:admin), checked by its bytes, and refuses anything else", async () => {
    const logo = sampleLogo();
    const put = await t.api('PUT', '/tenant/logo', { headers: h(), body: { image: logo.toString('base64') } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      content_type: 'image/png',
      size_bytes: logo.length,
      sha256: createHash('sha256').update(logo).digest('hex'),
      width: 360,
      height: 120,
    });
    expect((await t.api('GET', '/tenant/logo', { headers: h() })).body.data.image).toBe(logo.toString('base64'));

    const refused = async (image: string, code: number, field = 'image') =>
      expectError(await t.api('PUT', '/tenant/logo', { headers: h(), body: { image } }), code, field);
    await refused(Buffer.from('GIF89a\x01\x00\x01\x00').toString('base64'), 422103);
    await refused(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64'), 422103);
    // A PNG header whose image data is cut short, and one larger than 2000 pixels on a side.
    await refused(logo.subarray(0, 60).toString('base64'), 422103);
    await refused(pngImage(2400, 4, () => [0, 0, 0, 255]).toString('base64'), 422103);
    await refused('not base64!', 422103);
    await refused('A'.repeat(700_000), 400003);
    // The logo in place is still the first one.
    expect((await t.api('GET', '/tenant/logo', { headers: h() })).body.data.sha256).toBe(put.body.data.sha256);
    // A tenant setting: report:write alone does not change it; the sandbox has a logo of its own.
    const writer = await t.apiKey(['report:read', 'report:write']);
    expectError(await t.api('PUT', '/tenant/logo', { headers: { 'x-api-key': writer }, body: { image: logo.toString('base64') } }), 401004);
    const sandbox = await t.apiKey(['report:read', 'system:admin'], { sandbox: true });
    expectError(await t.api('GET', '/tenant/logo', { headers: { 'x-api-key': sandbox }, sandbox: true }), 404019);
    const removed = await t.api('DELETE', '/tenant/logo', { headers: { 'x-api-key': sandbox }, sandbox: true });
    expectError(removed, 404019);
  });

  it("renders a report in the project's zone with page N of M, the tenant's name and logo on every page and no nearly blank page", async () => {
    const tpl = (
      await t.api('POST', '/templates', { headers: h(), body: { name: 'Monthly', sections: ['summary', 'alarms', 'latest', 'points'], formats: ['pdf'] } })
    ).body.data;
    expect(tpl.time_zone).toBeNull();
    const started = await t.api('POST', `/projects/${projectId}/reports`, { headers: h(), body: { template_id: tpl.id, from: FROM, to: TO } });
    expect(started.status).toBe(200);
    expect(started.body.data.time_zone).toBe('Asia/Shanghai');
    const done = await waitDone(started.body.data.id);
    expect(done.status).toBe('generated');
    const { path, pages } = await pdfPages(done.id, 'shanghai');
    // Cover with approval block and plan; summary, alarms and latest values; then two points a page.
    expect(pages).toHaveLength(5);
    pages.forEach((text, i) => {
      expect(text).toMatch(new RegExp(`Page ${i + 1} of ${pages.length}\\s*$`));
      expect(text).toContain(tenantName);
      expect(text.replace(/\s/g, '').length).toBeGreaterThan(400);
      expect(text).not.toMatch(/UTC(?!\+08:00)/);
      expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    });
    expect(pages[0]).toContain('2026-03-01 08:00 UTC+08:00 – 2026-03-03 08:00 UTC+08:00');
    expect(pages[0]).toMatch(/Time zone +Asia\/Shanghai/);
    expect(pages[0]).toContain('Location plan');
    expect(pages[0]).toMatch(/Approved by/);
    // The newest reading, 2026-03-02T21:00:00Z, shown in Shanghai time.
    expect(pages.join('\n')).toMatch(/JC-06 +Crown settlement 6 +0\.9 +-0\.25 +-2\.7 +normal +2026-03-03 05:00:00 UTC\+08:00/);
    // The logo: one image placed on every page.
    const images = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n').slice(2);
    expect(images.filter((l) => l.trim().split(/\s+/)[2] === 'image')).toHaveLength(pages.length);

    // A template's zone comes before the project's, and the request's before both.
    const berlin = (
      await t.api('POST', '/templates', { headers: h(), body: { name: 'Berlin', sections: ['latest'], formats: ['pdf'], time_zone: 'Europe/Berlin' } })
    ).body.data;
    expect(berlin.time_zone).toBe('Europe/Berlin');
    const viaTemplate = await t.api('POST', `/projects/${projectId}/reports`, { headers: h(), body: { template_id: berlin.id, from: FROM, to: TO } });
    expect(viaTemplate.body.data.time_zone).toBe('Europe/Berlin');
    const asked = await t.api('POST', `/projects/${projectId}/reports`, {
      headers: h(),
      body: { template_id: berlin.id, from: FROM, to: TO, time_zone: 'UTC' },
    });
    expect(asked.body.data.time_zone).toBe('UTC');
    const cleared = await t.api('PATCH', `/templates/${berlin.id}`, { headers: h(), body: { time_zone: null } });
    expect(cleared.body.data.time_zone).toBeNull();
    expectError(await t.api('PATCH', `/templates/${berlin.id}`, { headers: h(), body: { time_zone: 'Berlin' } }), 422103, 'time_zone');
    const berlinDone = await waitDone(viaTemplate.body.data.id);
    const berlinPages = (await pdfPages(berlinDone.id, 'berlin')).pages;
    expect(berlinPages).toHaveLength(1);
    expect(berlinPages[0]).toContain('2026-03-01 01:00 UTC+01:00 – 2026-03-03 01:00 UTC+01:00');
    expect(berlinPages[0]).toMatch(/Page 1 of 1\s*$/);
  });

  it('keeps report schedules, and the scheduler asks for the report of each ended period once and mails it to the list once', async () => {
    const tpl = (await t.api('POST', '/templates', { headers: h(), body: { name: 'Weekly', sections: ['summary', 'latest'], formats: ['pdf', 'csv'] } })).body
      .data;
    const post = (body: Record<string, unknown>) => t.api('POST', `/projects/${projectId}/report-schedules`, { headers: h(), body });
    const list = [{ email: 'site@example.com' }, { email: 'client@example.org' }, { email: 'gone@example.org' }];
    const created = await post({ template_id: tpl.id, frequency: 'weekly', recipients: list });
    expect(created.status).toBe(200);
    const s = created.body.data;
    expect(s).toMatchObject({
      project_id: projectId,
      template_id: tpl.id,
      frequency: 'weekly',
      time_zone: 'Asia/Shanghai',
      recipients: list,
      last_report_id: null,
      last_run_at: null,
      last_error: null,
    });
    expect(s.id).toMatch(/^rsc_[0-9a-z]{20}$/);
    // The next run is the coming Monday 00:00 in Shanghai (16:00 UTC on Sunday).
    const next = new Date(s.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);
    expect([next.getUTCDay(), next.getUTCHours(), next.getUTCMinutes()]).toEqual([0, 16, 0]);

    expect((await t.api('GET', `/report-schedules/${s.id}`, { headers: h() })).body.data).toEqual(s);
    expect((await t.api('GET', `/projects/${projectId}/report-schedules`, { headers: h() })).body.data.items.map((x: { id: string }) => x.id)).toEqual([s.id]);

    const before = (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.report_schedules'))[0]!.n;
    expectError(await post({ template_id: tpl.id, frequency: 'daily' }), 422103, 'frequency');
    expectError(await post({ template_id: tpl.id, frequency: 'monthly', recipients: [{ email: 'not-an-address' }] }), 422103, 'recipients[0].email');
    expectError(await post({ template_id: tpl.id, frequency: 'monthly', time_zone: 'Moon/Base' }), 422103, 'time_zone');
    expectError(await post({ template_id: 'tpl_00000000000000000000', frequency: 'monthly' }), 404006, 'template_id');
    expectError(
      await post({ template_id: tpl.id, frequency: 'monthly', recipients: Array.from({ length: 21 }, (_, i) => ({ email: `p${i}@example.com` })) }),
      400003,
      'recipients',
    );
    expectError(await t.api('GET', '/report-schedules/rsc_00000000000000000000', { headers: h() }), 404018, 'schedule_id');
    expectError(await t.api('GET', '/report-schedules/weekly', { headers: h() }), 400004, 'schedule_id');
    const reader = await t.apiKey(['report:read', 'project:read', 'data:read']);
    expectError(
      await t.api('POST', `/projects/${projectId}/report-schedules`, { headers: { 'x-api-key': reader }, body: { template_id: tpl.id, frequency: 'weekly' } }),
      401004,
    );
    expect((await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.report_schedules'))[0]!.n).toBe(before);

    // The last week is over (as if the schedule had been made a week ago): the scheduler asks for its report.
    const lastEnd = Date.parse(s.next_run_at) - 7 * 86_400_000;
    await queryTestDatabase(t.db.url, 'UPDATE reports.report_schedules SET next_run_at = $2 WHERE id = $1', [s.id, new Date(lastEnd).toISOString()]);
    const ran = await waitUntil(
      async () => {
        const got = (await t.api('GET', `/report-schedules/${s.id}`, { headers: h() })).body.data;
        return got.last_report_id ? got : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, message: 'the scheduler did not ask for the report' },
    );
    expect(ran.next_run_at).toBe(s.next_run_at);
    expect(ran.last_run_at).not.toBeNull();
    const report = await waitDone(ran.last_report_id);
    // Monday to Sunday in Shanghai, named by its dates there.
    const shanghaiDay = (ms: number) => new Date(ms + 8 * 3600_000).toISOString().slice(0, 10);
    const title = `Weekly: Metro Line 4 tunnel, ${shanghaiDay(lastEnd - 7 * 86_400_000)} – ${shanghaiDay(lastEnd - 1)}`;
    expect(report).toMatchObject({
      status: 'generated',
      schedule_id: s.id,
      title,
      from: new Date(lastEnd - 7 * 86_400_000).toISOString(),
      to: new Date(lastEnd).toISOString(),
      time_zone: 'Asia/Shanghai',
    });
    expect(report.files.map((f: { format: string }) => f.format)).toEqual(['pdf', 'csv']);
    const { pages } = await pdfPages(report.id, 'scheduled');
    expect(pages[0]).toContain(title);
    expect(pages[0]).toMatch(/Page 1 of \d+/);
    // Once: one report of the schedule, however many ticks have run since.
    const ofSchedule = await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.reports WHERE schedule_id = $1', [s.id]);
    expect(ofSchedule[0]!.n).toBe(1);

    // The mail: one message to the list in the envelope (the To header does not show the list), the
    // report's title as subject, its PDF and CSV attached byte for byte; the refused address is
    // written on the schedule.
    const [mail] = await waitUntil(() => (smtp.to('site@example.com').length ? smtp.to('site@example.com') : null), {
      timeoutMs: 30_000,
      intervalMs: 100,
      message: 'the scheduled report was not mailed',
    });
    expect(mail).toMatchObject({ from: '"Site reports" <reports@platform.example>', subject: title, messageId: `<${report.id}@reports.monitoring-platform>` });
    expect(mail!.to.filter(Boolean)).toEqual([]);
    expect(mail!.envelopeTo.sort()).toEqual(['client@example.org', 'site@example.com']);
    expect(smtp.offered.get('gone@example.org')).toBe(1);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(mail!.attachments.map((a) => [a.filename, a.contentType.split(';')[0], sha(a.content)])).toEqual(
      // (the file name is the title without the characters file systems refuse, here the colon)
      report.files.map((f: { format: string; sha256: string }) => [
        `${title.replace(':', '')}.${f.format}`,
        f.format === 'pdf' ? 'application/pdf' : 'text/csv',
        f.sha256,
      ]),
    );
    expect(mail!.text).toContain(`Report: ${report.id}`);
    const mailed = await queryTestDatabase<{ mailed_at: Date | null }>(t.db.url, 'SELECT mailed_at FROM reports.reports WHERE id = $1', [report.id]);
    expect(mailed[0]!.mailed_at).not.toBeNull();
    const refusedNote = (await t.api('GET', `/report-schedules/${s.id}`, { headers: h() })).body.data.last_error;
    expect(refusedNote).toContain('gone@example.org');

    // Once: a second schedule's report, asked for and mailed by later ticks, arrives, and the first
    // report was still mailed only once.
    const other = (await post({ template_id: tpl.id, frequency: 'weekly', recipients: [{ email: 'later@example.com' }] })).body.data;
    await queryTestDatabase(t.db.url, `UPDATE reports.report_schedules SET next_run_at = next_run_at - interval '7 days' WHERE id = $1`, [other.id]);
    await waitUntil(() => smtp.to('later@example.com').length === 1, { timeoutMs: 60_000, intervalMs: 100, message: 'the second report was not mailed' });
    expect(smtp.mails.filter((m) => m.messageId === `<${report.id}@reports.monitoring-platform>`)).toHaveLength(1);
    expect((await t.api('DELETE', `/report-schedules/${other.id}`, { headers: h() })).status).toBe(200);

    const gone = await t.api('DELETE', `/report-schedules/${s.id}`, { headers: h() });
    expect(gone.body.data).toMatchObject({ id: s.id, deleted: true });
    expectError(await t.api('GET', `/report-schedules/${s.id}`, { headers: h() }), 404018, 'schedule_id');
    // Its report stays.
    expect((await t.api('GET', `/reports/${report.id}`, { headers: h() })).body.data.schedule_id).toBe(s.id);
  });
});
