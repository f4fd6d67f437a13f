import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import type { PointData, ReportData } from '../src/gather.js';
import { sampleLogo } from '@mp/testing';
import { samplePiezometer, samplePoint, sampleReport } from './sample-report.js';
import { reportChannels } from '../src/gather.js';
import { recordHeader, recordRow } from '../src/render/rows.js';
import { csvHeader, csvLines } from '../src/render/csv.js';
import { renderPdf } from '../src/render/pdf.js';
import { XlsxWriter } from '../src/render/xlsx.js';
// The thread's entry point is a module of the built package (a worker cannot load a .ts source).
import { renderPdfOffThread, TableRenderer } from '@mp/reports';

const data = sampleReport();
const point = samplePoint;

async function pdfBytes(d: ReportData): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await renderPdf(d, 'generated, awaiting approval', (c) => chunks.push(Buffer.from(c)));
  return Buffer.concat(chunks);
}

async function xlsxBytes(rows: (string | number | null)[][]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const w = new XlsxWriter((c) => chunks.push(Buffer.from(c)), new Date('2026-02-01T01:00:00Z'));
  w.summary([['Report', 'x']]);
  w.addRecords(rows);
  await w.end();
  return Buffer.concat(chunks);
}

describe('report documents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mp-render-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('renders the same PDF bytes for the same data, with pinned dates and embedded fonts', async () => {
    const a = await pdfBytes(data);
    const b = await pdfBytes(structuredClone(data));
    expect(a.equals(b)).toBe(true);
    // Another generation time is another document.
    expect((await pdfBytes({ ...data, requestedAt: '2026-02-01T01:00:01.000Z' })).equals(a)).toBe(false);
    const path = join(dir, 'a.pdf');
    writeFileSync(path, a);
    // The document's dates are the request time given, not the clock's.
    const info = execFileSync('pdfinfo', ['-isodates', path], { encoding: 'utf8' });
    expect(info).toMatch(/CreationDate:\s+2026-02-01T01:00:00Z/);
    expect(info).toMatch(/ModDate:\s+2026-02-01T01:00:00Z/);
    const extracted = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
    // Non-ASCII names survive as text (the font has the glyphs and a ToUnicode map).
    expect(extracted).toContain('JC-02 Schacht Süd – Ø 12 m, ±0.5 µm');
    expect(extracted).toContain('2026-01-01 01:00 UTC+01:00 – 2026-02-01 01:00 UTC+01:00');
    expect(execFileSync('pdffonts', [path], { encoding: 'utf8' })).toMatch(/DejaVuSans-Bold\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    // Every point page has its plot as vector paths, not an image.
    expect(execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(2);
  });

  it('numbers every page N of M, heads it with the tenant, shows every time in the time zone and leaves no page nearly blank', async () => {
    const logo = sampleLogo();
    // Seven points in Asia/Shanghai: the monthly report of the issue, with its tenant's logo.
    const points = Array.from({ length: 7 }, (_, i) => point(i + 1, `Settlement point ${i + 1}`));
    const shanghai: ReportData = {
      ...data,
      timeZone: 'Asia/Shanghai',
      points,
      tenant: { name: 'Baugrund Nord GmbH', logo: { contentType: 'image/png', width: 360, height: 120, sha256: 'x', bytes: logo } },
    };
    const path = join(dir, 'shanghai.pdf');
    writeFileSync(path, await pdfBytes(shanghai));
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path], { encoding: 'utf8' }))![1]);
    // Cover with plan and summary, alarms and latest values, then two points a page.
    expect(pages).toBe(5);
    for (let n = 1; n <= pages; n++) {
      const text = execFileSync('pdftotext', ['-layout', '-f', String(n), '-l', String(n), path, '-'], { encoding: 'utf8' });
      expect(text).toMatch(new RegExp(`Page ${n} of ${pages}\\s*$`));
      expect(text).toContain('Baugrund Nord GmbH');
      expect(text).toContain('Monthly report: Metro Line 4');
      // No nearly blank page: each holds at least a table or a plot's worth of text.
      expect(text.replace(/\s/g, '').length).toBeGreaterThan(400);
      // Times in the report's zone only: no UTC or other offset, and no raw ISO time.
      expect(text).not.toMatch(/UTC(?!\+08:00)/);
      expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    }
    const all = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
    expect(all).toContain('2026-01-01 08:00 UTC+08:00 – 2026-02-01 08:00 UTC+08:00');
    // The latest reading, sent as 2026-01-31T23:00:00+08:00, in the zone and to the second.
    expect(all).toMatch(/JC-01 +Settlement point 1 +1\.234 +-0\.5 +-13\.95 +warning +2026-01-31 23:00:00 UTC\+08:00\n/);
    expect(all).toMatch(/Approved by\s/);
    expect(all).toContain('Location plan');
    // The logo is one image object placed on every page, not a copy per page.
    const images = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .slice(2)
      .map((l) => l.trim().split(/\s+/));
    const logos = images.filter((cols) => cols[2] === 'image');
    expect(logos.map((cols) => cols[0])).toEqual(Array.from({ length: pages }, (_, i) => String(i + 1)));
    expect(new Set(logos.map((cols) => cols[10])).size).toBe(1);
    // And the same inputs, logo included, still give the same bytes.
    expect((await pdfBytes(structuredClone(shanghai))).equals(await pdfBytes(shanghai))).toBe(true);
  });

  it('names who approved the report and when, once it carries its approval', async () => {
    const path = join(dir, 'approved.pdf');
    writeFileSync(path, await pdfBytes({ ...data, approval: { by: 'Dr. Anna Weber', at: '2026-02-03T09:30:00.000Z' } }));
    const text = execFileSync('pdftotext', ['-layout', '-f', '1', '-l', '1', path, '-'], { encoding: 'utf8' });
    expect(text).toMatch(/Approved by +Dr\. Anna Weber +2026-02-03 10:30 UTC\+01:00 +approved in the platform/);
  });

  it('renders the PDF in a thread of its own, to the same bytes', async () => {
    const chunks: Uint8Array[] = [];
    await renderPdfOffThread(data, 'generated, awaiting approval', (c) => chunks.push(c));
    expect(Buffer.concat(chunks).equals(await pdfBytes(data))).toBe(true);
  });

  it('renders a point without records in the period, and a period without data', async () => {
    const empty: PointData = {
      ...point(3, 'Dry well'),
      buckets: [],
      count: 0,
      stats: { dx: null, dy: null, dz: null },
      latest: null,
      abnormal: { warning: 0, alarm: 0 },
      alarms: { warning: 0, alarm: 0 },
    };
    const path = join(dir, 'empty.pdf');
    writeFileSync(path, await pdfBytes({ ...data, points: [empty], dataAsOf: null, missingPointIds: ['pt_zzzzzzzzzzzzzzzzzzzz'] }));
    const text = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
    expect(text).toMatch(/JC-03 +Dry well +– +no valid record/);
    expect(text).toMatch(/Data as of +–/);
    expect(text).toMatch(/Not in the project +pt_zzzzzzzzzzzzzzzzzzzz/);
    expect(text).toMatch(/dz +0 +– +– +– +– +–/);
  });

  // docs/instruments.md: an instrument point's plot and tables show its primary channel in its unit.
  it("plots and tabulates a piezometer's pore pressure in kPa with its trigger levels, the same bytes each time", async () => {
    const d = { ...data, points: [...data.points, samplePiezometer(3, 'Core piezometer')] };
    const a = await pdfBytes(d);
    expect(a.equals(await pdfBytes(structuredClone(d)))).toBe(true);
    const path = join(dir, 'piezometer.pdf');
    writeFileSync(path, a);
    const text = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
    expect(text).toContain('Time history of pore_pressure in kPa');
    expect(text).toMatch(/Channel +Count +Min \(kPa\) +Max \(kPa\) +Mean \(kPa\) +Last \(kPa\) +Rate \(kPa\/day\)/);
    expect(text).toMatch(/pore_pressure +744 +179\.000 +258\.500 +218\.750 +257\.25 +2\.5000/);
    // the latest reading of the instrument, with its unit
    expect(text).toMatch(/PZ-03 +Core piezometer +pore_pressure +257\.25 +kPa +warning/);
    // legend: the channel and its levels
    expect(text).toMatch(/pore_pressure \(kPa\)/);
    expect(text).toMatch(/warning > 250\.0 kPa/);
    expect(text).toMatch(/alarm > 300\.0 kPa/);
    // the summary shows no displacement thresholds for it
    expect(text).toMatch(/PZ-03 +Core piezometer +744 +– +– +– +warning/);
    // the total stations are drawn as before
    expect(text).toMatch(/JC-01 +Crown settlement JC-01 +1\.234 +-0\.5 +-13\.95/);
    // the location plan places the points with reference coordinates only: the piezometer has none
    const plan = execFileSync('pdftotext', ['-layout', '-f', '1', '-l', '1', path, '-'], { encoding: 'utf8' });
    expect(plan).toContain('Location plan');
    const between = plan.slice(plan.indexOf('Location plan'), plan.indexOf('Summary'));
    expect(between).toContain('JC-01');
    expect(between).not.toContain('PZ-03');
  });

  it('adds a column per instrument channel, named with its unit, to the CSV and XLSX records, and none without instruments', async () => {
    const pz = samplePiezometer(3, 'Core piezometer');
    const channels = reportChannels([data.points[0]!.point, pz.point]);
    expect(recordHeader(channels).slice(13)).toEqual(['pore_pressure (kPa)', 'frequency (Hz)', 'temperature (°C)']);
    expect(reportChannels(data.points.map((p) => p.point))).toEqual([]);
    const points = new Map([pz.point, data.points[0]!.point].map((p) => [p.id, p]));
    const rows = [recordRow(pz.latest!, points, channels), recordRow(data.points[0]!.latest!, points, channels)];
    expect(rows[0]!.slice(13)).toEqual([257.25, 2480.5, 9.5]);
    expect(rows[1]!.slice(8, 11)).toEqual([1.234, -0.5, -13.95]);
    expect(rows[1]!.slice(13)).toEqual([null, null, null]);
    const csv = csvHeader(recordHeader(channels)) + csvLines(rows);
    expect(csv.split('\r\n')[0]).toBe(
      'data_id,point_id,point_number,point_name,measured_at,x,y,z,dx,dy,dz,status,quality_flag,pore_pressure (kPa),frequency (Hz),temperature (°C)',
    );
    expect(csv.split('\r\n')[1]).toMatch(/,warning,valid,257\.25,2480\.5,9\.5$/);
    const chunks: Buffer[] = [];
    const w = new XlsxWriter((c) => chunks.push(Buffer.from(c)), new Date('2026-02-01T01:00:00Z'), recordHeader(channels));
    w.summary([['Report', 'x']]);
    w.addRecords(rows);
    await w.end();
    const read = XLSX.utils.sheet_to_json<unknown[]>(XLSX.read(Buffer.concat(chunks), { type: 'buffer' }).Sheets.Records!, { header: 1, defval: null });
    expect(read[0]).toEqual(recordHeader(channels));
    expect((read[1] as unknown[]).slice(13)).toEqual([257.25, 2480.5, 9.5]);
  });

  it('writes the same XLSX bytes for the same rows, readable by a reader library', async () => {
    const rows = [
      ['dat_1', 'pt_1', 'JC-01', 'A & B <north>', '2026-01-01T00:00:00+08:00', null, null, null, 1.5, -0.25, 0, 'normal', 'valid'],
      ['dat_2', 'pt_1', 'JC-01', 'bell\u0007 sign', '2026-01-01T01:00:00+08:00', 3512345.1, 512345.6, 45.3, 1.25, -0.5, 0.125, 'warning', 'suspect'],
    ];
    const a = await xlsxBytes(rows);
    expect(a.equals(await xlsxBytes(rows))).toBe(true);
    const book = XLSX.read(a, { type: 'buffer' });
    expect(book.SheetNames).toEqual(['Summary', 'Records']);
    const read = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Records!, { header: 1, defval: null });
    expect(read[0]).toEqual(csvHeader().trim().split(','));
    expect(read.slice(1)).toEqual([rows[0], [...rows[1]!.slice(0, 3), 'bell sign', ...rows[1]!.slice(4)]]);
  });

  // ADR 0093: the CSV and XLSX are encoded in a thread of their own too, page by page,
  // to the bytes the writers make on this thread.
  it('encodes the CSV and XLSX in a thread of their own, to the same bytes', async () => {
    const page = (from: number) =>
      Array.from({ length: 2000 }, (_, i) => [
        `dat_${from + i}`,
        'pt_1',
        'JC-01',
        '=cmd|A & B <north>',
        '2026-01-01T00:00:00+08:00',
        null,
        null,
        null,
        i / 8,
        -i / 16,
        0,
        'normal',
        'valid',
      ]);
    const pages = [page(0), page(2000), page(4000).slice(0, 17)];
    const summary = [['Report', 'x']];
    const mtime = new Date('2026-02-01T01:00:00Z');
    const direct = { csv: [Buffer.from(csvHeader())], xlsx: [] as Buffer[] };
    const w = new XlsxWriter((c) => direct.xlsx.push(Buffer.from(c)), mtime);
    w.summary(summary);
    for (const p of pages) {
      direct.csv.push(Buffer.from(csvLines(p)));
      w.addRecords(p);
    }
    await w.end();

    const threaded = async () => {
      const out = { csv: [] as Buffer[], xlsx: [] as Buffer[] };
      const tables = new TableRenderer(
        { csv: true, xlsx: { mtime: mtime.getTime(), summary } },
        { csv: (c) => out.csv.push(Buffer.from(c)), xlsx: (c) => out.xlsx.push(Buffer.from(c)) },
      );
      for (const p of pages) {
        await tables.addRows(p);
        // the page's bytes are in when addRows resolves (the next page is read only then)
        expect(out.csv.at(-1)!.toString()).toMatch(new RegExp(`^${p.at(-1)![0]},.*\r\n$`, 'm'));
      }
      await tables.end();
      return { csv: Buffer.concat(out.csv), xlsx: Buffer.concat(out.xlsx) };
    };
    const a = await threaded();
    expect(a.csv.equals(Buffer.concat(direct.csv))).toBe(true);
    expect(a.xlsx.equals(Buffer.concat(direct.xlsx))).toBe(true);
    const b = await threaded();
    expect([b.csv.equals(a.csv), b.xlsx.equals(a.xlsx)]).toEqual([true, true]);
    expect(XLSX.utils.sheet_to_json(XLSX.read(a.xlsx, { type: 'buffer' }).Sheets.Records!)).toHaveLength(4017);
  });

  it('keeps the table thread within its memory bound: past it the render fails, the process goes on', async () => {
    const tables = new TableRenderer({ csv: true, xlsx: null }, { csv: () => undefined }, { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 });
    // one page far beyond anything the reports party reads at once (2,000 records)
    const huge = Array.from({ length: 400_000 }, (_, i) => [
      `dat_${i}`,
      'pt_1',
      'JC-01',
      `point ${i} `.repeat(4),
      '2026-01-01T00:00:00Z',
      i,
      i,
      i,
      1,
      2,
      3,
      'normal',
      'valid',
    ]);
    await expect(tables.addRows(huge)).rejects.toMatchObject({ code: 'ERR_WORKER_OUT_OF_MEMORY' });
    await expect(tables.addRows([])).rejects.toMatchObject({ code: 'ERR_WORKER_OUT_OF_MEMORY' });
    // this process, and a render after it, are unharmed
    const out: Buffer[] = [];
    const next = new TableRenderer({ csv: true, xlsx: null }, { csv: (c) => out.push(Buffer.from(c)) });
    await next.addRows([['dat_1', 'pt_1', 'JC-01', 'A', '2026-01-01T00:00:00Z', null, null, null, 1, 2, 3, 'normal', 'valid']]);
    await next.end();
    expect(Buffer.concat(out).toString()).toBe(`${csvHeader()}dat_1,pt_1,JC-01,A,2026-01-01T00:00:00Z,,,,1,2,3,normal,valid\r\n`);
  });

  it('quotes CSV cells and keeps user text from running as a spreadsheet formula', () => {
    expect(csvLines([['dat_1', 'a,b', 'say "hi"', '=HYPERLINK("x")', '-1', -1.5, null]])).toBe(`dat_1,"a,b","say ""hi""","'=HYPERLINK(""x"")",'-1,-1.5,\r\n`);
  });
});
