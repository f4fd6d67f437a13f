import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import type { PointData, ReportData } from '../src/gather.js';
import { csvHeader, csvLines } from '../src/render/csv.js';
import { renderPdf } from '../src/render/pdf.js';
import { XlsxWriter } from '../src/render/xlsx.js';
// The thread's entry point is a module of the built package (a worker cannot load a .ts source).
import { renderPdfOffThread, TableRenderer } from '@mp/reports';

const FROM = Date.parse('2026-01-01T00:00:00Z');
const TO = Date.parse('2026-02-01T00:00:00Z');

function point(i: number, name: string): PointData {
  const buckets = [];
  for (let t = FROM; t < TO; t += 6 * 3600_000) {
    const k = (t - FROM) / 86_400_000;
    const s = (v: number) => ({ min: v - 0.2, avg: v, max: v + 0.2 });
    buckets.push({ start: new Date(t).toISOString(), count: 6, dx: s(Math.sin(k / 3) * 4), dy: s(k * 0.3 - 2), dz: s(-k * 0.45) });
  }
  return {
    point: { id: `pt_${String(i).padStart(20, '0')}`, number: `JC-0${i}`, name, warning: 10, alarm: 20 },
    buckets,
    intervalMs: 6 * 3600_000,
    count: buckets.length * 6,
    stats: {
      dx: { min: -4.2, max: 4.2, mean: 0.1, last: 1.234, ratePerDay: 0.01 },
      dy: { min: -2.2, max: 7.2, mean: 2.5, last: -0.5, ratePerDay: 0.3 },
      dz: { min: -14.1, max: 0.2, mean: -7, last: -13.95, ratePerDay: -0.45 },
    },
    latest: {
      id: 'dat_00000000000000000001',
      projectId: 'prj_00000000000000000001',
      pointId: `pt_${String(i).padStart(20, '0')}`,
      measuredAt: '2026-01-31T23:00:00+08:00',
      values: { dx: 1.234, dy: -0.5, dz: -13.95 },
      status: 'warning',
      qualityFlag: 'valid',
      createdAt: '2026-02-01T00:00:00Z',
      updatedAt: '2026-02-01T00:00:00Z',
      version: 1,
    },
    abnormal: { warning: 3, alarm: 0 },
    alarms: { warning: 1, alarm: 0 },
  };
}

const data: ReportData = {
  id: 'rpt_00000000000000000001',
  title: 'Monthly report: Metro Line 4',
  from: new Date(FROM).toISOString(),
  to: new Date(TO).toISOString(),
  timeZone: 'Europe/Berlin',
  requestedAt: '2026-02-01T01:00:00.000Z',
  templateName: 'Monthly',
  sections: ['summary', 'alarms', 'latest', 'points'],
  project: { id: 'prj_00000000000000000001', name: 'Metro Line 4 tunnel', number: 'ML4-2026' },
  points: [point(1, 'Crown settlement JC-01'), point(2, 'Schacht Süd – Ø 12 m, ±0.5 µm')],
  missingPointIds: [],
  dataAsOf: '2026-01-31T15:00:00.000Z',
};

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

  // Issue 26 item 12: the CSV and XLSX are encoded in a thread of their own too, page by page,
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
