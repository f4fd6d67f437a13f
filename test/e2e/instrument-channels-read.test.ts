import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { waitUntil } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Reads per channel (docs/instruments.md#series-per-channel, #exports; ADR 0118) through the HTTPS
// gateway: a piezometer's series of its primary channel in kPa by default and of any channel by
// name, an unknown channel refused naming `channel`, its latest values with units, and a report
// whose PDF plots pore pressure in kPa and whose CSV and XLSX carry a column per channel; a total
// station's series and latest values exactly as the specification describes them.
describe('instrument channels: series, latest values and reports', () => {
  let t: TestPlatform;
  let key: string;
  let projectId: string;
  let piezometer: string;
  let prism: string;
  const dir = mkdtempSync(join(tmpdir(), 'mp-channels-'));
  const h = () => ({ 'x-api-key': key });
  const FROM = '2026-03-01T00:00:00Z';
  const TO = '2026-03-03T00:00:00Z';

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write', 'data:read', 'data:write', 'report:read', 'report:write']);
    projectId = (await t.api('POST', '/projects', { headers: h(), body: { name: 'Dam channels', number: 'DAM-C', start_date: '2026-01-01' } })).body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: h(), body: { status: 'in_progress' } })).status).toBe(200);
    const pz = await t.api('POST', `/projects/${projectId}/points`, {
      headers: h(),
      body: {
        number: 'PZ-1',
        name: 'Core piezometer',
        sensor_type: 'piezometer',
        trigger_levels: [
          { level: 'warning', channel: 'pore_pressure', above: 250 },
          { level: 'alarm', channel: 'pore_pressure', above: 300 },
        ],
      },
    });
    expect(pz.status).toBe(200);
    piezometer = pz.body.data.id;
    prism = (
      await t.api('POST', `/projects/${projectId}/points`, {
        headers: h(),
        body: {
          number: 'TS-1',
          name: 'Crest prism',
          sensor_type: 'total_station',
          reference: { x: 100, y: 200, z: 30 },
          thresholds: { warning: 10, alarm: 20 },
        },
      })
    ).body.data.id;
    // two days, hourly: pore pressure rises 2 kPa an hour from 150, temperature 10 + hour/10
    const records = [];
    for (let i = 0; i < 48; i++) {
      const at = new Date(Date.parse(FROM) + i * 3600_000).toISOString();
      records.push({ point_id: piezometer, measured_at: at, values: { pore_pressure: 150 + 2 * i, temperature: 10 + i / 10 } });
      records.push({ point_id: prism, measured_at: at, values: { dx: i / 10, dy: 0, dz: -i / 20 } });
    }
    const res = await t.api('POST', `/projects/${projectId}/data`, { headers: h(), body: { records } });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves a piezometer's series of pore pressure in kPa by default, and any of its channels by name", async () => {
    const res = await t.api('GET', `/points/${piezometer}/series?from=${FROM}&to=${TO}&interval_seconds=86400`, { headers: h() });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      point_id: piezometer,
      project_id: projectId,
      channel: 'pore_pressure',
      unit: 'kPa',
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-03T00:00:00.000Z',
      interval_seconds: 86400,
      buckets: [
        // hand-computed: 150 + 2i for i in 0..23, then 24..47
        { start: '2026-03-01T00:00:00.000Z', count: 24, min: 150, avg: 173, max: 196 },
        { start: '2026-03-02T00:00:00.000Z', count: 24, min: 198, avg: 221, max: 244 },
      ],
    });
    const temp = await t.api('GET', `/points/${piezometer}/series?from=${FROM}&to=${TO}&buckets=1&channel=temperature`, { headers: h() });
    expect(temp.body.data).toMatchObject({ channel: 'temperature', unit: '°C', interval_seconds: 172800 });
    expect(temp.body.data.buckets).toEqual([{ start: '2026-03-01T00:00:00.000Z', count: 48, min: 10, avg: 12.35, max: 14.7 }]);
  });

  it('refuses a channel the point does not have: 400001 naming channel, with the point channels in the suggestion', async () => {
    const res = await t.api('GET', `/points/${piezometer}/series?channel=dz`, { headers: h() });
    expectError(res, 400001, 'channel');
    expect(res.body.data.suggestion).toContain('pore_pressure, frequency, temperature');
    expectError(await t.api('GET', `/points/${piezometer}/series?channel=${'c'.repeat(101)}`, { headers: h() }), 400003, 'channel');
  });

  it('keeps the total station series exactly as before (dx, dy, dz per bucket, no channel or unit)', async () => {
    const res = await t.api('GET', `/points/${prism}/series?from=${FROM}&to=${TO}&interval_seconds=86400`, { headers: h() });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['point_id', 'project_id', 'from', 'to', 'interval_seconds', 'buckets']);
    expect(res.body.data.buckets[0]).toEqual({
      start: '2026-03-01T00:00:00.000Z',
      count: 24,
      dx: { min: 0, avg: 1.15, max: 2.3 },
      dy: { min: 0, avg: 0, max: 0 },
      dz: { min: -1.15, avg: -0.575, max: 0 },
    });
  });

  it('shows the latest values of an instrument with their units, and of a total station as before', async () => {
    const res = await t.api('GET', `/projects/${projectId}/data/latest`, { headers: h() });
    expect(res.status).toBe(200);
    const byPoint = new Map(res.body.data.items.map((r: { point_id: string }) => [r.point_id, r]));
    expect(byPoint.get(piezometer)).toMatchObject({
      measured_at: '2026-03-02T23:00:00Z',
      values: { pore_pressure: 244, temperature: 14.7 },
      units: { pore_pressure: 'kPa', temperature: '°C' },
    });
    const ts = byPoint.get(prism) as Record<string, unknown>;
    expect(ts.values).toEqual({ dx: 4.7, dy: 0, dz: -2.35 });
    expect(ts).not.toHaveProperty('units');
  });

  it("makes a report whose PDF plots the piezometer's pore pressure in kPa and whose CSV and XLSX carry its channels with units", async () => {
    const tpl = (
      await t.api('POST', '/templates', {
        headers: h(),
        body: { name: 'Channels', sections: ['summary', 'latest', 'points'], formats: ['pdf', 'csv', 'xlsx'] },
      })
    ).body.data;
    const started = await t.api('POST', `/projects/${projectId}/reports`, {
      headers: h(),
      body: { template_id: tpl.id, from: FROM, to: TO, time_zone: 'UTC' },
    });
    expect(started.status).toBe(200);
    const done = (
      await waitUntil(
        async () => {
          const r = await t.api('GET', `/reports/${started.body.data.id}`, { headers: h() });
          return r.body.data.status !== 'generating' ? r : null;
        },
        { timeoutMs: 60_000, intervalMs: 100, message: 'report still generating' },
      )
    ).body.data;
    expect(done.status).toBe('generated');
    const pdf = await t.api('GET', `/reports/${done.id}/file?format=pdf`, { headers: h() });
    const pdfPath = join(dir, 'channels.pdf');
    writeFileSync(pdfPath, pdf.bytes);
    const text = execFileSync('pdftotext', ['-layout', pdfPath, '-'], { encoding: 'utf8' });
    expect(text).toContain('Time history of pore_pressure in kPa');
    expect(text).toMatch(/pore_pressure +48 +150\.000 +244\.000 +197\.000 +244 +/);
    expect(text).toMatch(/PZ-1 +Core piezometer +pore_pressure +244 +kPa/);
    expect(text).toMatch(/warning > 250\.0 kPa/);

    const csv = await t.api('GET', `/reports/${done.id}/file?format=csv`, { headers: h() });
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'data_id,point_id,point_number,point_name,measured_at,x,y,z,dx,dy,dz,status,quality_flag,pore_pressure (kPa),frequency (Hz),temperature (°C)',
    );
    expect(lines).toHaveLength(1 + 96);
    const pzLast = lines.filter((l) => l.includes(piezometer)).at(-1)!;
    expect(pzLast.endsWith(',244,,14.7')).toBe(true);
    const tsLine = lines.find((l) => l.includes(prism))!;
    expect(tsLine.endsWith(',normal,valid,,,')).toBe(true);

    const xlsx = await t.api('GET', `/reports/${done.id}/file?format=xlsx`, { headers: h() });
    const book = XLSX.read(xlsx.bytes, { type: 'buffer' });
    const records = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Records!, { header: 1, defval: null });
    expect(records[0]).toEqual(lines[0]!.split(','));
    const summary = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Summary!, { header: 1, defval: null });
    const head = summary.find((r) => r[0] === 'point_id')!;
    expect(head.at(-1)).toBe('unit');
    const pzRow = summary.find((r) => r[0] === piezometer)!;
    expect([pzRow[3], pzRow[4], pzRow[5], pzRow[6], pzRow.at(-1)]).toEqual(['pore_pressure', 48, 150, 244, 'kPa']);
  });
});
