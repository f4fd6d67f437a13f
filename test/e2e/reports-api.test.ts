import { createHash, createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { ops, sample } from '../support/ops.js';

// Proof of ADR 0025: templates and reports through the HTTPS gateway, the documents checked against
// what the API itself reports (pdftotext for the PDF, the data list for the CSV, a reader library
// for the XLSX), and report.generated / report.approved / report.rejected at a webhook receiver.
describe('reports through the gateway', () => {
  let t: TestPlatform;
  let key: string;
  let receiver: HttpsReceiver;
  let hookSecret: string;
  let projectId: string;
  const points: { id: string; number: string; name: string }[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'mp-reports-'));
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const FROM = '2026-03-01T00:00:00Z';
  const TO = '2026-03-03T00:00:00Z';
  const reportRows = () => queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.reports').then((r) => r[0]!.n);
  const eventsOf = (type: string) => receiver.requests.filter((r) => r.json?.event_type === type);

  const waitGenerated = (id: string) =>
    waitUntil(
      async () => {
        const res = await t.api('GET', `/reports/${id}`, { headers: h() });
        return res.body.data.status !== 'generating' ? res : null;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: `report ${id} still generating` },
    );
  const generate = async (body: Record<string, unknown>) => {
    const res = await t.api('POST', `/projects/${projectId}/reports`, { headers: h(), body });
    expect(res.status).toBe(200);
    return res;
  };
  const download = (id: string, format: string, headers: Record<string, string> = {}) =>
    t.api('GET', `/reports/${id}/file?format=${format}`, { headers: h(headers) });
  /** Every record of the period as GET /projects/{id}/data pages it. */
  const apiRecords = async () => {
    const all: any[] = [];
    let cursor = '';
    do {
      const res = await t.api('GET', `/projects/${projectId}/data?from=${FROM}&to=${TO}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: h() });
      expect(res.status).toBe(200);
      all.push(...res.body.data.items);
      cursor = res.body.data.has_more ? res.body.data.next_cursor : '';
    } while (cursor);
    return all;
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write', 'report:read', 'report:write']);
    receiver = await startHttpsReceiver();
    const hook = await t.api('POST', '/webhooks', {
      headers: h(),
      body: {
        name: 'reports',
        url: receiver.url,
        events: ['report.generated', 'report.approved', 'report.rejected'],
        retry_policy: { max_retries: 3, retry_interval: 1 },
      },
    });
    expect(hook.status).toBe(200);
    hookSecret = hook.body.data.secret;
    const project = await t.api('POST', '/projects', {
      headers: h(),
      body: { name: 'Metro Line 4, tunnel "north"', number: 'ML4-2026', start_date: '2026-01-01' },
    });
    projectId = project.body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } })).status).toBe(200);
    for (const [number, name] of [
      ['JC-01', 'Crown settlement JC-01'],
      ['JC-02', 'Sidewall, left = convergence'],
    ]) {
      const p = await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: { number, name, sensor_type: 'total_station', reference: { x: 3512345.1, y: 512345.6, z: 45.3 }, thresholds: { warning: 5, alarm: 8 } },
      });
      expect(p.status).toBe(200);
      points.push({ id: p.body.data.id, number, name });
    }
    // Two days of hourly readings per point (+08:00 as an instrument sends them), the second
    // point drifting into its warning band, and one reading on each side of the period.
    const records: unknown[] = [];
    for (let i = -1; i <= 48; i++) {
      const at = new Date(Date.parse(FROM) + i * 3600_000);
      const local = new Date(at.getTime() + 8 * 3600_000).toISOString().replace('.000Z', '+08:00');
      records.push({ point_id: points[0]!.id, measured_at: local, values: { dx: +(0.011 * i).toFixed(3), dy: -0.25, dz: +(-0.0375 * i).toFixed(4) } });
      records.push({ point_id: points[1]!.id, measured_at: local, values: { dx: +(0.12 * i).toFixed(2), dy: 1.5, dz: 0.125 } });
    }
    const w = await t.api('POST', `/projects/${projectId}/data`, { headers: h(), body: { records } });
    expect(w.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, reads, lists, changes and deletes templates, with 404006, 409004 and validation codes', async () => {
    const created = await t.api('POST', '/templates', { headers: h(), body: { name: 'Weekly', sections: ['summary', 'latest'] } });
    expect(created.status).toBe(200);
    const tpl = created.body.data;
    expect(tpl).toMatchObject({ name: 'Weekly', description: null, sections: ['summary', 'latest'], point_ids: null, formats: ['pdf', 'csv'], version: 1 });
    expect(tpl.id).toMatch(/^tpl_[0-9a-z]{20}$/);
    expect((await t.api('GET', `/templates/${tpl.id}`, { headers: h() })).body.data).toEqual(tpl);
    expect((await t.api('GET', '/templates', { headers: h() })).body.data.items.map((x: { id: string }) => x.id)).toContain(tpl.id);

    const patched = await t.api('PATCH', `/templates/${tpl.id}`, { headers: h(), body: { description: 'every Monday', formats: ['xlsx'], version: 1 } });
    expect(patched.body.data).toMatchObject({ description: 'every Monday', formats: ['xlsx'], version: 2 });
    expect(patched.headers.etag).toBe('"2"');
    expectError(await t.api('PATCH', `/templates/${tpl.id}`, { headers: h({ 'if-match': '"1"' }), body: { name: 'Stale' } }), 409004, 'version');
    expect((await t.api('GET', `/templates/${tpl.id}`, { headers: h() })).body.data.name).toBe('Weekly');

    expectError(await t.api('POST', '/templates', { headers: h(), body: { name: 'x', sections: ['summary', 'weather'] } }), 422103, 'sections[1]');
    expectError(await t.api('POST', '/templates', { headers: h(), body: { name: 'x', sections: [] } }), 422101, 'sections');
    expectError(await t.api('POST', '/templates', { headers: h(), body: { name: 'x', sections: ['points'], formats: ['docx'] } }), 422103, 'formats[0]');
    expectError(await t.api('POST', '/templates', { headers: h(), body: { name: 'x', sections: ['points'], point_ids: ['JC-01'] } }), 400004, 'point_ids[0]');
    expectError(await t.api('POST', '/templates', { headers: h(), body: { name: '   ', sections: ['points'] } }), 400003, 'name');

    expect((await t.api('DELETE', `/templates/${tpl.id}`, { headers: h() })).body.data).toMatchObject({ id: tpl.id, deleted: true });
    expectError(await t.api('GET', `/templates/${tpl.id}`, { headers: h() }), 404006, 'template_id');
    expectError(await t.api('PATCH', `/templates/${tpl.id}`, { headers: h(), body: { name: 'gone' } }), 404006, 'template_id');
    expectError(await t.api('GET', '/templates/weekly', { headers: h() }), 400004, 'template_id');
    // The sandbox sees none of the live environment's templates.
    const sandboxKey = await t.apiKey(['report:read', 'report:write'], { sandbox: true });
    const live = (await t.api('POST', '/templates', { headers: h(), body: { name: 'Live only', sections: ['summary'] } })).body.data;
    expectError(await t.api('GET', `/templates/${live.id}`, { headers: { 'x-api-key': sandboxKey }, sandbox: true }), 404006, 'template_id');
    expect((await t.api('GET', '/templates', { headers: { 'x-api-key': sandboxKey }, sandbox: true })).body.data.items).toEqual([]);
    // Read-only keys read but do not write.
    const reader = await t.apiKey(['report:read']);
    expectError(await t.api('POST', '/templates', { headers: { 'x-api-key': reader }, body: { name: 'x', sections: ['points'] } }), 401004);
  });

  it('generates a report in the background whose PDF, CSV and XLSX hold what the API reports', async () => {
    const tpl = (
      await t.api('POST', '/templates', {
        headers: h(),
        body: { name: 'Full', sections: ['summary', 'alarms', 'latest', 'points'], formats: ['pdf', 'csv', 'xlsx'] },
      })
    ).body.data;
    const started = await generate({ template_id: tpl.id, from: FROM, to: TO, title: 'March report', time_zone: 'Asia/Shanghai' });
    expect(started.body.data).toMatchObject({
      project_id: projectId,
      template_id: tpl.id,
      title: 'March report',
      status: 'generating',
      files: [],
      from: '2026-03-01T00:00:00.000Z',
    });
    expect(started.body.data.id).toMatch(/^rpt_[0-9a-z]{20}$/);
    const done = (await waitGenerated(started.body.data.id)).body.data;
    expect(done.status).toBe('generated');
    expect(done.files.map((f: { format: string }) => f.format)).toEqual(['pdf', 'csv', 'xlsx']);
    const records = await apiRecords();
    expect(records).toHaveLength(96);
    expect(done.record_count).toBe(96);
    expect(done.data_as_of).toBe(new Date(Math.max(...records.map((r) => Date.parse(r.measured_at)))).toISOString());
    expect(done.generated_at).not.toBeNull();

    // CSV: exactly the records of GET /projects/{id}/data for the period.
    const csv = await download(done.id, 'csv');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="${done.id}.csv"`);
    const csvFile = done.files.find((f: { format: string }) => f.format === 'csv');
    expect(csv.headers.etag).toBe(`"${csvFile.sha256}"`);
    expect(createHash('sha256').update(csv.bytes).digest('hex')).toBe(csvFile.sha256);
    expect(csv.bytes.length).toBe(csvFile.size_bytes);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('data_id,point_id,point_number,point_name,measured_at,x,y,z,dx,dy,dz,status,quality_flag');
    expect(lines).toHaveLength(97);
    const byId = new Map(records.map((r) => [r.data_id, r]));
    const csvRow = (r: any) => {
      const p = points.find((x) => x.id === r.point_id)!;
      const name = p.name.includes(',') ? `"${p.name}"` : p.name;
      const v = (k: string) => (r.values[k] === undefined ? '' : String(r.values[k]));
      return [r.data_id, r.point_id, p.number, name, r.measured_at, v('x'), v('y'), v('z'), v('dx'), v('dy'), v('dz'), r.status, r.quality_flag].join(',');
    };
    for (const line of lines.slice(1)) {
      const id = line.split(',')[0]!;
      expect(line).toBe(csvRow(byId.get(id)));
      byId.delete(id);
    }
    expect(byId.size).toBe(0);
    expect((await download(done.id, 'csv', { 'if-none-match': `"${csvFile.sha256}"` })).status).toBe(304);

    // PDF: real text with the point names and the latest values as the API reports them.
    const pdf = await download(done.id, 'pdf');
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const pdfFile = done.files.find((f: { format: string }) => f.format === 'pdf');
    expect(createHash('sha256').update(pdf.bytes).digest('hex')).toBe(pdfFile.sha256);
    const pdfPath = join(dir, 'report.pdf');
    writeFileSync(pdfPath, pdf.bytes);
    const text = execFileSync('pdftotext', ['-layout', pdfPath, '-'], { encoding: 'utf8' });
    const fonts = execFileSync('pdffonts', [pdfPath], { encoding: 'utf8' });
    expect(fonts).toMatch(/DejaVuSans\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    expect(text).toContain('March report');
    expect(text).toContain('Metro Line 4, tunnel "north" (ML4-2026)');
    expect(text).toContain('2026-03-01 08:00 UTC+08:00 – 2026-03-03 08:00 UTC+08:00');
    const latest = await t.api('GET', `/projects/${projectId}/data?to=${TO}&from=${FROM}&limit=1&point_id=${points[1]!.id}`, { headers: h() });
    for (const p of points) {
      expect(text).toContain(p.name);
      const newest = (await t.api('GET', `/projects/${projectId}/data?from=${FROM}&to=${TO}&limit=1&point_id=${p.id}`, { headers: h() })).body.data.items[0];
      const v = newest.values;
      // One line of the latest-values table: number, name (wrapped when long), dx, dy, dz, status,
      // and measured_at in the report's zone (Asia/Shanghai, UTC+08:00 all year) to the second.
      const firstWord = escape(p.name.split(' ')[0]!);
      const shanghai = new Date(Date.parse(newest.measured_at) + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ') + ' UTC+08:00';
      expect(text).toMatch(
        new RegExp(
          `${p.number} +${firstWord}[^\\n]* ${escape(String(v.dx))} +${escape(String(v.dy))} +${escape(String(v.dz))} +${newest.status} +${escape(shanghai)}\\n`,
        ),
      );
      expect(text).toContain(`${p.number} ${p.name}\n`);
    }
    expect(latest.body.data.items[0].status).toBe('warning');
    // The alarm summary counts the abnormal records of the period per point and level.
    const abnormal = records.filter((r) => r.point_id === points[1]!.id && r.status === 'warning').length;
    expect(abnormal).toBeGreaterThan(0);
    // Alarms of the point that were opened in the period or whose readings reach into it, as the API lists them.
    const alarms = (await t.api('GET', `/projects/${projectId}/alarms?point_id=${points[1]!.id}&limit=100`, { headers: h() })).body.data.items;
    const within = (iso: string | null) => iso !== null && Date.parse(iso) >= Date.parse(FROM) && Date.parse(iso) < Date.parse(TO);
    const inPeriod = alarms.filter((a: any) => within(a.opened_at) || within(a.last_measured_at));
    const level = (l: string) => inPeriod.filter((a: any) => a.level === l).length;
    expect(text).toMatch(new RegExp(`JC-02 +Sidewall, left = convergence +${abnormal} +0 +${level('warning')} +${level('alarm')}\\n`));

    // XLSX: the same rows as the CSV on a Records sheet, and a Summary sheet.
    const xlsx = await download(done.id, 'xlsx');
    expect(xlsx.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const book = XLSX.read(xlsx.bytes, { type: 'buffer' });
    expect(book.SheetNames).toEqual(['Summary', 'Records']);
    const sheet = XLSX.utils.sheet_to_json<any>(book.Sheets.Records!, { defval: null });
    expect(sheet).toHaveLength(96);
    for (const row of sheet) {
      const r = records.find((x) => x.data_id === row.data_id);
      expect(row).toEqual({
        data_id: r.data_id,
        point_id: r.point_id,
        point_number: points.find((p) => p.id === r.point_id)!.number,
        point_name: points.find((p) => p.id === r.point_id)!.name,
        measured_at: r.measured_at,
        x: r.values.x ?? null,
        y: r.values.y ?? null,
        z: r.values.z ?? null,
        dx: r.values.dx,
        dy: r.values.dy,
        dz: r.values.dz,
        status: r.status,
        quality_flag: r.quality_flag,
      });
    }
    const summary = XLSX.utils.sheet_to_json<any[]>(book.Sheets.Summary!, { header: 1, defval: null });
    expect(summary[0]!.slice(0, 2)).toEqual(['Report', 'March report']);
    expect(summary.filter((r) => r[0] === points[0]!.id).map((r) => r[3])).toEqual(['dx', 'dy', 'dz']);

    // report.generated at the receiver, signed, with the documented payload.
    const event = await waitUntil(() => eventsOf('report.generated').find((e) => e.json.data.report_id === done.id), { timeoutMs: 20_000 });
    const ts = event.headers['x-service-timestamp'];
    expect(event.headers['x-service-signature']).toBe('sha256=' + createHmac('sha256', hookSecret).update(`${ts}.${event.rawBody}`).digest('hex'));
    expect(event.json.data).toEqual({
      report_id: done.id,
      report_title: 'March report',
      project_id: projectId,
      project_name: 'Metro Line 4, tunnel "north"',
      template_id: tpl.id,
      period: { from: done.from, to: done.to },
      status: 'generated',
      files: done.files,
      generated_at: done.generated_at,
      data_as_of: done.data_as_of,
    });
  }, 120_000);

  it('counts generation attempts by outcome and reads the waiting queue on the ops port (/metrics)', async () => {
    const scrape = async () => (await ops(t.platform.opsPort!, '/metrics')).text;
    const before = await scrape();
    const tpl = (await t.api('POST', '/templates', { headers: h(), body: { name: 'Metrics', sections: ['summary'], formats: ['csv'] } })).body.data;
    const done = (await waitGenerated((await generate({ template_id: tpl.id, from: FROM, to: TO })).body.data.id)).body.data;
    expect(done.status).toBe('generated');
    const after = await scrape();
    expect(sample(after, 'mp_report_jobs_total', { outcome: 'generated' }) - sample(before, 'mp_report_jobs_total', { outcome: 'generated' })).toBe(1);
    expect(
      sample(after, 'mp_report_generation_seconds_count', { outcome: 'generated' }) -
        sample(before, 'mp_report_generation_seconds_count', { outcome: 'generated' }),
    ).toBe(1);
    // nothing waits once it is generated; the gauges are read from the reports table at each scrape
    expect(after).toMatch(/^mp_report_jobs_waiting 0$/m);
    expect(after).toMatch(/^mp_report_jobs_oldest_waiting_age_seconds 0$/m);
    // the reports relay's outbox is labelled as its own service
    expect(after).toMatch(/^mp_outbox_pending_events\{service="reports"\} \d+$/m);
  });

  it('approves and rejects generated reports only, raising report.approved and report.rejected', async () => {
    const tpl = (
      await t.api('POST', '/templates', { headers: h(), body: { name: 'Latest only', sections: ['latest'], point_ids: [points[0]!.id], formats: ['csv'] } })
    ).body.data;
    const a = (await waitGenerated((await generate({ template_id: tpl.id, from: FROM, to: TO })).body.data.id)).body.data;
    const b = (await waitGenerated((await generate({ template_id: tpl.id, from: FROM, to: TO })).body.data.id)).body.data;
    expect(a.title).toBe('Latest only: Metro Line 4, tunnel "north"');
    // The template names one point: the CSV holds its records only.
    expect(a.record_count).toBe(48);
    expect((await download(a.id, 'pdf')).status).toBe(400);
    expectError(await download(a.id, 'pdf'), 400001, 'format');

    expectError(await t.api('POST', `/reports/${b.id}/reject`, { headers: h(), body: {} }), 422101, 'reason');
    const approved = await t.api('POST', `/reports/${a.id}/approve`, { headers: h(), body: { comment: 'checked against the site log' } });
    expect(approved.body.data).toMatchObject({ status: 'approved', comment: 'checked against the site log', rejected_by: null, reason: null });
    expect(approved.body.data.approved_by).toMatch(/^key_/);
    const rejected = await t.api('POST', `/reports/${b.id}/reject`, { headers: h(), body: { reason: 'JC-01 needs a re-survey' } });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', reason: 'JC-01 needs a re-survey', approved_by: null });

    // Anything but generated is a 409011, and changes nothing.
    expectError(await t.api('POST', `/reports/${a.id}/approve`, { headers: h(), body: {} }), 409011, 'status');
    expectError(await t.api('POST', `/reports/${a.id}/reject`, { headers: h(), body: { reason: 'late' } }), 409011, 'status');
    expectError(await t.api('POST', `/reports/${b.id}/approve`, { headers: h(), body: {} }), 409011, 'status');
    expect((await t.api('GET', `/reports/${a.id}`, { headers: h() })).body.data).toMatchObject({ status: 'approved', reason: null });

    await waitUntil(() => eventsOf('report.approved').length >= 1 && eventsOf('report.rejected').length >= 1, { timeoutMs: 20_000 });
    expect(eventsOf('report.approved')).toHaveLength(1);
    expect(eventsOf('report.rejected')).toHaveLength(1);
    const ap = eventsOf('report.approved')[0]!.json.data;
    expect(ap).toEqual({
      report_id: a.id,
      report_title: a.title,
      project_id: projectId,
      project_name: a.project_name,
      template_id: tpl.id,
      period: { from: FROM.replace('Z', '.000Z'), to: TO.replace('Z', '.000Z') },
      status: 'approved',
      files: a.files,
      generated_at: a.generated_at,
      data_as_of: a.data_as_of,
      approved_by: approved.body.data.approved_by,
      approved_at: approved.body.data.approved_at,
      comment: 'checked against the site log',
    });
    const rj = eventsOf('report.rejected')[0]!.json.data;
    expect(rj).toMatchObject({
      report_id: b.id,
      status: 'rejected',
      rejected_by: rejected.body.data.rejected_by,
      rejected_at: rejected.body.data.rejected_at,
      reason: 'JC-01 needs a re-survey',
    });

    // Two reviewers at once: one of them decides, the other gets 409011; one event.
    const c = (await waitGenerated((await generate({ template_id: tpl.id, from: FROM, to: TO })).body.data.id)).body.data;
    const [x, y] = await Promise.all([
      t.api('POST', `/reports/${c.id}/approve`, { headers: h(), body: {} }),
      t.api('POST', `/reports/${c.id}/reject`, { headers: h(), body: { reason: 'at the same time' } }),
    ]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    expect([x, y].find((r) => r.status === 409)!.body.code).toBe(409011);
    const decided = x.status === 200 ? 'report.approved' : 'report.rejected';
    await waitUntil(() => eventsOf(decided).some((e) => e.json.data.report_id === c.id), { timeoutMs: 20_000 });
    const [{ n }] = await queryTestDatabase<{ n: number }>(
      t.db.url,
      "SELECT count(*)::int AS n FROM reports.outbox WHERE event_type IN ('report.approved', 'report.rejected') AND data::jsonb->>'report_id' = $1",
      [c.id],
    );
    expect(n).toBe(1);

    // Lists: by project and status, newest first.
    const list = await t.api('GET', `/reports?project_id=${projectId}&status=approved`, { headers: h() });
    expect(list.body.data.items.map((r: { id: string }) => r.id)).toEqual(x.status === 200 ? [c.id, a.id] : [a.id]);
    expectError(await t.api('GET', '/reports?status=archived', { headers: h() }), 400001, 'status');
  }, 120_000);

  it('refuses unknown reports, templates and bad periods with their codes and stores nothing', async () => {
    const before = await reportRows();
    expectError(await t.api('GET', '/reports/rpt_zzzzzzzzzzzzzzzzzzzz', { headers: h() }), 404005, 'report_id');
    expectError(await t.api('GET', '/reports/rpt_zzzzzzzzzzzzzzzzzzzz/file?format=pdf', { headers: h() }), 404005, 'report_id');
    expectError(await t.api('POST', '/reports/rpt_zzzzzzzzzzzzzzzzzzzz/approve', { headers: h(), body: {} }), 404005, 'report_id');
    expectError(await t.api('GET', '/reports/report-1', { headers: h() }), 400004, 'report_id');
    expectError(await t.api('GET', '/reports/rpt_zzzzzzzzzzzzzzzzzzzz/file?format=docx', { headers: h() }), 400001, 'format');
    const tpl = (await t.api('POST', '/templates', { headers: h(), body: { name: 'T', sections: ['points'] } })).body.data;
    const post = (body: Record<string, unknown>, project = projectId) => t.api('POST', `/projects/${project}/reports`, { headers: h(), body });
    expectError(await post({ template_id: 'tpl_zzzzzzzzzzzzzzzzzzzz', from: FROM, to: TO }), 404006, 'template_id');
    expectError(await post({ template_id: tpl.id, from: FROM, to: TO }, 'prj_zzzzzzzzzzzzzzzzzzzz'), 404001, 'project_id');
    expectError(await post({ template_id: tpl.id, from: TO, to: FROM }), 422204, 'to');
    expectError(await post({ template_id: tpl.id, from: '2025-01-01T00:00:00Z', to: TO }), 400003, 'to');
    expectError(await post({ template_id: tpl.id, from: '1 March', to: TO }), 400004, 'from');
    expectError(await post({ template_id: tpl.id, from: FROM, to: TO, time_zone: 'Mars/Olympus' }), 422103, 'time_zone');
    expectError(await post({ from: FROM, to: TO }), 422101, 'template_id');
    expect(await reportRows()).toBe(before);
  });

  it('reads a project as the person who asks: a non-member with report:write gets 403001', async () => {
    const user = {
      username: 'report-writer',
      password: 'report writer password 1',
      name: 'Report Writer',
      permissions: ['project:read', 'data:read', 'report:read', 'report:write'],
    };
    expect((await t.api('POST', '/users', { headers: h(), body: user })).status).toBe(200);
    const login = await t.api('POST', '/auth/login', { body: { username: user.username, password: user.password, grant_type: 'password' } });
    const bearer = { authorization: `Bearer ${login.body.data.access_token}` };
    const tpl = (await t.api('POST', '/templates', { headers: bearer, body: { name: 'Mine', sections: ['latest'] } })).body.data;
    const before = await reportRows();
    expectError(
      await t.api('POST', `/projects/${projectId}/reports`, { headers: bearer, body: { template_id: tpl.id, from: FROM, to: TO } }),
      403001,
      'project_id',
    );
    expect(await reportRows()).toBe(before);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
