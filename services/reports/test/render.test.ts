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
import { renderPdfOffThread } from '@mp/reports';

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

  it('quotes CSV cells and keeps user text from running as a spreadsheet formula', () => {
    expect(csvLines([['dat_1', 'a,b', 'say "hi"', '=HYPERLINK("x")', '-1', -1.5, null]])).toBe(`dat_1,"a,b","say ""hi""","'=HYPERLINK(""x"")",'-1,-1.5,\r\n`);
  });
});
