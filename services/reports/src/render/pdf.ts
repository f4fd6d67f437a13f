import PDFDocument from 'pdfkit';
import { AXES, type PointData, type ReportData } from '../gather.js';
import { reportFonts } from './fonts.js';
import { exact, localTime, mm } from './format.js';
import { drawPlot } from './plot.js';

const MARGIN = 42;
const PAGE = { width: 595.28, height: 841.89 };
const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;

interface Column {
  title: string;
  width: number;
  align?: 'left' | 'right';
}

/**
 * The report as PDF (ADR 0025): a cover, then the template's sections in its order: summary,
 * alarm summary, latest values, and per point a time-history plot with its statistics. Text is
 * real text in an embedded font, plots are vector paths, and nothing depends on the clock or on
 * chance: the document's dates are the report's request time and pdfkit's file id is a hash of
 * its metadata, so the same data give the same bytes.
 */
export function renderPdf(data: ReportData, status: string, sink: (chunk: Uint8Array) => void): Promise<void> {
  const fonts = reportFonts();
  const at = new Date(data.requestedAt);
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    compress: true,
    font: fonts.regular as unknown as string,
    bufferPages: false,
    info: {
      Title: data.title,
      Author: 'Monitoring Platform',
      Subject: `${data.project.name} (${data.project.number}), ${data.from} – ${data.to}`,
      Creator: 'Monitoring Platform reports',
      Producer: 'Monitoring Platform reports',
      CreationDate: at,
      ModDate: at,
    },
  });
  const done = new Promise<void>((resolve, reject) => {
    doc.on('data', (chunk: Uint8Array) => sink(chunk));
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  doc.registerFont('regular', fonts.regular);
  doc.registerFont('bold', fonts.bold);
  const tz = data.timeZone;
  const when = (iso: string | null) => (iso ? localTime(iso, tz) : '–');

  const heading = (text: string) => {
    doc.font('bold').fontSize(14).fillColor('#000000').text(text, MARGIN, doc.y, { width: CONTENT_WIDTH });
    doc.moveDown(0.4);
  };
  const ensure = (space: number) => {
    if (doc.y + space > PAGE.height - MARGIN) doc.addPage();
  };
  const table = (columns: Column[], rows: string[][]) => {
    const line = (cells: string[], bold: boolean) => {
      ensure(16);
      const y = doc.y;
      let x = MARGIN;
      doc
        .font(bold ? 'bold' : 'regular')
        .fontSize(8)
        .fillColor('#000000');
      let h = 0;
      cells.forEach((c, i) => {
        const col = columns[i]!;
        doc.text(c, x + 2, y, { width: col.width - 4, align: col.align ?? 'left' });
        h = Math.max(h, doc.y - y);
        x += col.width;
      });
      doc.y = y + h + 3;
      doc
        .lineWidth(0.3)
        .strokeColor('#bbbbbb')
        .moveTo(MARGIN, doc.y - 1.5)
        .lineTo(MARGIN + CONTENT_WIDTH, doc.y - 1.5)
        .stroke();
    };
    line(
      columns.map((c) => c.title),
      true,
    );
    for (const r of rows) line(r, false);
    doc.moveDown(0.8);
  };

  // Cover.
  doc.font('bold').fontSize(22).text(data.title, MARGIN, 150, { width: CONTENT_WIDTH });
  doc.moveDown(1.2);
  const facts: [string, string][] = [
    ['Project', `${data.project.name} (${data.project.number})`],
    ['Period', `${when(data.from)} – ${when(data.to)}`],
    ['Time zone', tz],
    ['Generated at', when(data.requestedAt)],
    ['Data as of', when(data.dataAsOf)],
    ['Template', data.templateName],
    ['Status', status],
    ['Report', data.id],
    ['Points', String(data.points.length)],
  ];
  if (data.missingPointIds.length) facts.push(['Not in the project', data.missingPointIds.join(', ')]);
  for (const [k, v] of facts) {
    const y = doc.y;
    doc.font('bold').fontSize(11).text(k, MARGIN, y, { width: 130 });
    doc
      .font('regular')
      .fontSize(11)
      .text(v, MARGIN + 135, y, { width: CONTENT_WIDTH - 135 });
    doc.moveDown(0.3);
  }

  for (const section of data.sections) {
    if (section === 'summary') {
      doc.addPage();
      heading('Summary');
      table(
        [
          { title: 'Point', width: 60 },
          { title: 'Name', width: 140 },
          { title: 'Records', width: 55, align: 'right' },
          { title: 'Warning (mm)', width: 65, align: 'right' },
          { title: 'Alarm (mm)', width: 60, align: 'right' },
          { title: 'Largest |d| (mm)', width: 75, align: 'right' },
          { title: 'Latest status', width: 56 },
        ],
        data.points.map((p) => [
          p.point.number,
          p.point.name,
          String(p.count),
          mm(p.point.warning, 1),
          mm(p.point.alarm, 1),
          mm(largest(p)),
          p.latest?.status ?? '–',
        ]),
      );
    } else if (section === 'alarms') {
      doc.addPage();
      heading('Alarm summary');
      doc
        .font('regular')
        .fontSize(9)
        .text('Abnormal records measured in the period and alarms opened in it, per point and level.', MARGIN, doc.y, { width: CONTENT_WIDTH });
      doc.moveDown(0.5);
      const rows = data.points
        .filter((p) => p.abnormal.warning + p.abnormal.alarm + p.alarms.warning + p.alarms.alarm > 0)
        .map((p) => [p.point.number, p.point.name, String(p.abnormal.warning), String(p.abnormal.alarm), String(p.alarms.warning), String(p.alarms.alarm)]);
      table(
        [
          { title: 'Point', width: 60 },
          { title: 'Name', width: 160 },
          { title: 'Warning records', width: 75, align: 'right' },
          { title: 'Alarm records', width: 75, align: 'right' },
          { title: 'Warning alarms', width: 70, align: 'right' },
          { title: 'Alarm alarms', width: 70, align: 'right' },
        ],
        rows.length ? rows : [['–', 'No abnormal records and no alarms in the period.', '0', '0', '0', '0']],
      );
    } else if (section === 'latest') {
      doc.addPage();
      heading('Latest values');
      doc
        .font('regular')
        .fontSize(9)
        .text('The newest valid record of each point in the period; displacements in mm, measured_at as recorded.', MARGIN, doc.y, { width: CONTENT_WIDTH });
      doc.moveDown(0.5);
      table(
        [
          { title: 'Point', width: 50 },
          { title: 'Name', width: 105 },
          { title: 'dx', width: 55, align: 'right' },
          { title: 'dy', width: 55, align: 'right' },
          { title: 'dz', width: 55, align: 'right' },
          { title: 'Status', width: 45 },
          { title: 'measured_at', width: 146 },
        ],
        data.points.map((p) => [
          p.point.number,
          p.point.name,
          exact(p.latest?.values?.dx),
          exact(p.latest?.values?.dy),
          exact(p.latest?.values?.dz),
          p.latest?.status ?? '–',
          p.latest?.measuredAt ?? 'no valid record',
        ]),
      );
    } else if (section === 'points') {
      for (const p of data.points) {
        doc.addPage();
        heading(`${p.point.number} ${p.point.name}`);
        doc
          .font('regular')
          .fontSize(9)
          .text(`Time history of the displacements (bucket means) from ${when(data.from)} to ${when(data.to)}.`, MARGIN, doc.y, {
            width: CONTENT_WIDTH,
          });
        doc.moveDown(0.5);
        const box = { x: MARGIN, y: doc.y, width: CONTENT_WIDTH, height: 300 };
        drawPlot(doc, box, p, Date.parse(data.from), Date.parse(data.to), tz, p.intervalMs);
        doc.y = box.y + box.height + 12;
        table(
          [
            { title: 'Axis', width: 45 },
            { title: 'Count', width: 60, align: 'right' },
            { title: 'Min (mm)', width: 70, align: 'right' },
            { title: 'Max (mm)', width: 70, align: 'right' },
            { title: 'Mean (mm)', width: 70, align: 'right' },
            { title: 'Last (mm)', width: 70, align: 'right' },
            { title: 'Rate (mm/day)', width: 126, align: 'right' },
          ],
          AXES.map((a) => {
            const s = p.stats[a];
            return [a, String(s ? p.count : 0), mm(s?.min), mm(s?.max), mm(s?.mean), exact(s?.last) || '–', mm(s?.ratePerDay, 4)];
          }),
        );
        doc
          .font('regular')
          .fontSize(8)
          .fillColor('#444444')
          .text('Statistics over the valid and suspect records of the period; last and rate from its first and last valid records.', MARGIN, doc.y, {
            width: CONTENT_WIDTH,
          });
      }
    }
  }
  doc.end();
  return done;
}

function largest(p: PointData): number | null {
  let m: number | null = null;
  for (const a of AXES) {
    const s = p.stats[a];
    if (s) m = Math.max(m ?? 0, Math.abs(s.min), Math.abs(s.max));
  }
  return m;
}
