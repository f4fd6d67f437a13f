import PDFDocument from 'pdfkit';
import { AXES, valueOf, type PointData, type ReportData } from '../gather.js';
import { reportFonts } from './fonts.js';
import { exact, localTime, mm } from './format.js';
import { CONTENT_BOTTOM, CONTENT_TOP, CONTENT_WIDTH, MARGIN } from './layout.js';
import { drawFrame, openImage } from './page-frame.js';
import { drawPlan, planHeight } from './plan.js';
import { drawPlot } from './plot.js';

interface Column {
  title: string;
  width: number;
  align?: 'left' | 'right';
}

/** A point's plot, and its whole block: heading, caption, plot, statistics and their note (two fit a page). */
const POINT_PLOT_HEIGHT = 230;
const POINT_BLOCK_HEIGHT = POINT_PLOT_HEIGHT + 115;
const PLAN_HEIGHT = { min: 140, max: 250 };

/**
 * The report as PDF (ADRs 0025, 0107): the cover (title, facts, the approval block and the
 * location plan), then the template's sections in its order (summary, alarm summary, latest
 * values, and per point a time-history plot with its statistics), flowing one after another so
 * that no page is left nearly blank; a section starts a new page only when its heading and first
 * rows would not fit. Every page carries the tenant's logo and name, the title, and "Page N of M"
 * (the pages are buffered until the last one, so M is known). Every time is shown in the report's
 * time zone. Text is real text in an embedded font, plots are vector paths, and nothing depends on
 * the clock or on chance: the document's dates are the report's request time and pdfkit's file id
 * is a hash of its metadata, so the same data give the same bytes.
 */
export function renderPdf(data: ReportData, status: string, sink: (chunk: Uint8Array) => void): Promise<void> {
  const fonts = reportFonts();
  const at = new Date(data.requestedAt);
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: CONTENT_TOP, bottom: MARGIN + 10, left: MARGIN, right: MARGIN },
    compress: true,
    font: fonts.regular as unknown as string,
    bufferPages: true,
    info: {
      Title: data.title,
      Author: data.tenant.name ?? 'Monitoring Platform',
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

  /** A new page when `space` does not fit below the current position; true when one was started. */
  const ensure = (space: number): boolean => {
    if (doc.y + space <= CONTENT_BOTTOM) return false;
    doc.addPage();
    doc.y = CONTENT_TOP;
    return true;
  };
  const heading = (text: string, keepWith: number) => {
    ensure(26 + keepWith);
    doc.font('bold').fontSize(13).fillColor('#000000').text(text, MARGIN, doc.y, { width: CONTENT_WIDTH });
    doc.moveDown(0.3);
  };
  const caption = (text: string) => {
    doc.font('regular').fontSize(8.5).fillColor('#333333').text(text, MARGIN, doc.y, { width: CONTENT_WIDTH });
    doc.moveDown(0.4);
  };
  const table = (columns: Column[], rows: string[][]) => {
    const header = columns.map((c) => c.title);
    const line = (cells: string[], bold: boolean) => {
      // A table that runs on to the next page repeats its header row there.
      if (ensure(16) && !bold) line(header, true);
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
    line(header, true);
    for (const r of rows) line(r, false);
    doc.moveDown(1);
  };

  // Cover: title, the report's facts, who approves it, where the points are.
  doc
    .font('bold')
    .fontSize(20)
    .fillColor('#000000')
    .text(data.title, MARGIN, CONTENT_TOP + 6, { width: CONTENT_WIDTH });
  doc.moveDown(0.8);
  const facts: [string, string][] = [
    ['Project', `${data.project.name} (${data.project.number})`],
    ['Period', `${when(data.from)} – ${when(data.to)}`],
    ['Time zone', tz],
    ['Generated at', when(data.requestedAt)],
    ['Data as of', when(data.dataAsOf)],
    ['Template', data.templateName],
    ['Report', data.id],
    ['Points', String(data.points.length)],
  ];
  if (data.missingPointIds.length) facts.push(['Not in the project', data.missingPointIds.join(', ')]);
  for (const [k, v] of facts) {
    const y = doc.y;
    doc.font('bold').fontSize(10).fillColor('#000000').text(k, MARGIN, y, { width: 120 });
    doc
      .font('regular')
      .fontSize(10)
      .text(v, MARGIN + 125, y, { width: CONTENT_WIDTH - 125 });
    doc.moveDown(0.25);
  }
  doc.moveDown(0.8);
  drawApproval(doc, data, status, when);
  // Only points with reference coordinates are placed: an instrument point has none (docs/instruments.md).
  const placed = data.points.filter((p) => !p.point.channel);
  if (placed.length) {
    const planned = placed.map((p) => ({ number: p.point.number, x: p.point.x, y: p.point.y, status: p.latest?.status ?? null }));
    const height = planHeight(planned, CONTENT_WIDTH, PLAN_HEIGHT.min, PLAN_HEIGHT.max);
    heading('Location plan', height + 14);
    caption('Points at their reference coordinates, coloured by the status of their latest valid record in the period.');
    const box = { x: MARGIN, y: doc.y, width: CONTENT_WIDTH, height };
    drawPlan(doc, box, planned);
    doc.y = box.y + box.height + 14;
  }

  for (const section of data.sections) {
    if (section === 'summary') {
      heading('Summary', 60);
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
          // an instrument point has trigger levels on its channels, not displacement thresholds
          p.point.channel ? '–' : mm(p.point.warning, 1),
          p.point.channel ? '–' : mm(p.point.alarm, 1),
          p.point.channel ? '–' : mm(largest(p)),
          p.latest?.status ?? '–',
        ]),
      );
    } else if (section === 'alarms') {
      heading('Alarm summary', 70);
      caption('Abnormal records measured in the period and alarms opened in it, per point and level.');
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
      heading('Latest values', 70);
      const instruments = data.points.filter((p) => p.point.channel);
      if (instruments.length < data.points.length || !instruments.length) {
        caption(`The newest valid record of each point in the period; displacements in mm, measured at (${tz}).`);
        table(
          [
            { title: 'Point', width: 50 },
            { title: 'Name', width: 105 },
            { title: 'dx', width: 55, align: 'right' },
            { title: 'dy', width: 55, align: 'right' },
            { title: 'dz', width: 55, align: 'right' },
            { title: 'Status', width: 45 },
            { title: 'Measured at', width: 146 },
          ],
          data.points
            .filter((p) => !p.point.channel)
            .map((p) => [
              p.point.number,
              p.point.name,
              exact(p.latest?.values?.dx),
              exact(p.latest?.values?.dy),
              exact(p.latest?.values?.dz),
              p.latest?.status ?? '–',
              p.latest ? localTime(p.latest.measuredAt, tz, true) : 'no valid record',
            ]),
        );
      }
      // instrument points: the primary channel's latest value with its unit (docs/instruments.md)
      if (instruments.length) {
        caption(`The newest valid record of each instrument point in the period: its primary channel in its unit, measured at (${tz}).`);
        table(
          [
            { title: 'Point', width: 50 },
            { title: 'Name', width: 105 },
            { title: 'Channel', width: 80 },
            { title: 'Value', width: 55, align: 'right' },
            { title: 'Unit', width: 30 },
            { title: 'Status', width: 45 },
            { title: 'Measured at', width: 146 },
          ],
          instruments.map((p) => [
            p.point.number,
            p.point.name,
            p.point.channel!.name,
            exact(valueOf(p.latest, p.point.channel!.name)),
            p.point.channel!.unit,
            p.latest?.status ?? '–',
            p.latest ? localTime(p.latest.measuredAt, tz, true) : 'no valid record',
          ]),
        );
      }
    } else if (section === 'points') {
      for (const p of data.points) {
        ensure(POINT_BLOCK_HEIGHT);
        heading(`${p.point.number} ${p.point.name}`, 0);
        const ch = p.point.channel;
        caption(
          ch
            ? `Time history of ${ch.name} in ${ch.unit} (bucket means) from ${when(data.from)} to ${when(data.to)}, with its trigger levels.`
            : `Time history of the displacements (bucket means) from ${when(data.from)} to ${when(data.to)}.`,
        );
        const box = { x: MARGIN, y: doc.y, width: CONTENT_WIDTH, height: POINT_PLOT_HEIGHT };
        drawPlot(doc, box, p, Date.parse(data.from), Date.parse(data.to), tz, p.intervalMs);
        doc.y = box.y + box.height + 8;
        if (ch) {
          const s = p.channelStats;
          table(
            [
              { title: 'Channel', width: 75 },
              { title: 'Count', width: 50, align: 'right' },
              { title: `Min (${ch.unit})`, width: 65, align: 'right' },
              { title: `Max (${ch.unit})`, width: 65, align: 'right' },
              { title: `Mean (${ch.unit})`, width: 65, align: 'right' },
              { title: `Last (${ch.unit})`, width: 65, align: 'right' },
              { title: `Rate (${ch.unit}/day)`, width: 126, align: 'right' },
            ],
            [[ch.name, String(s ? p.count : 0), mm(s?.min), mm(s?.max), mm(s?.mean), exact(s?.last) || '–', mm(s?.ratePerDay, 4)]],
          );
        } else
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
        doc.moveUp(0.6);
        doc
          .font('regular')
          .fontSize(7.5)
          .fillColor('#444444')
          .text('Statistics over the valid and suspect records of the period; last and rate from its first and last valid records.', MARGIN, doc.y, {
            width: CONTENT_WIDTH,
          });
        doc.moveDown(1.2);
      }
    }
  }

  const frame = {
    tenantName: data.tenant.name,
    logo: data.tenant.logo ? openImage(doc, data.tenant.logo.bytes) : null,
    title: data.title,
    project: `${data.project.name} (${data.project.number})`,
    reportId: data.id,
    status,
  };
  const { start, count } = doc.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    drawFrame(doc, frame, i - start, count);
  }
  doc.end();
  return done;
}

/**
 * Who prepared, checked and approved the report. The document is made before anyone reviews it,
 * so the block shows its status then and leaves name, date and signature to fill in; once a
 * report carries its approval (`data.approval`), the block names who approved it and when.
 */
function drawApproval(doc: InstanceType<typeof PDFDocument>, data: ReportData, status: string, when: (iso: string | null) => string): void {
  const top = doc.y;
  const rowH = 22;
  const cols = [
    { title: '', width: 80 },
    { title: 'Name', width: 150 },
    { title: 'Date', width: 150 },
    { title: 'Signature', width: CONTENT_WIDTH - 380 },
  ];
  doc.font('bold').fontSize(11).fillColor('#000000').text('Approval', MARGIN, top, { width: CONTENT_WIDTH });
  doc
    .font('regular')
    .fontSize(8)
    .fillColor('#333333')
    .text(`Status: ${status}.`, MARGIN, doc.y + 2, { width: CONTENT_WIDTH });
  const y0 = doc.y + 4;
  const approval = data.approval;
  const rows: string[][] = [
    ['Prepared by', data.tenant.name ?? '', when(data.requestedAt), ''],
    ['Checked by', '', '', ''],
    ['Approved by', approval?.by ?? '', approval ? when(approval.at) : '', approval ? 'approved in the platform' : ''],
  ];
  doc.lineWidth(0.4).strokeColor('#777777');
  let x = MARGIN;
  doc.font('bold').fontSize(7.5).fillColor('#555555');
  for (const c of cols) {
    doc.text(c.title, x + 3, y0 + 2, { width: c.width - 6, lineBreak: false });
    x += c.width;
  }
  rows.forEach((r, i) => {
    const y = y0 + 11 + i * rowH;
    let cx = MARGIN;
    r.forEach((cell, j) => {
      doc
        .font(j === 0 ? 'bold' : 'regular')
        .fontSize(8.5)
        .fillColor('#000000')
        .text(cell, cx + 3, y + 7, { width: cols[j]!.width - 6, height: rowH - 4, lineBreak: false, ellipsis: true });
      cx += cols[j]!.width;
    });
    doc.rect(MARGIN, y, CONTENT_WIDTH, rowH).stroke();
  });
  x = MARGIN;
  for (const c of cols.slice(0, -1)) {
    x += c.width;
    doc
      .moveTo(x, y0 + 11)
      .lineTo(x, y0 + 11 + rows.length * rowH)
      .stroke();
  }
  doc.y = y0 + 11 + rows.length * rowH + 16;
}

function largest(p: PointData): number | null {
  let m: number | null = null;
  for (const a of AXES) {
    const s = p.stats[a];
    if (s) m = Math.max(m ?? 0, Math.abs(s.min), Math.abs(s.max));
  }
  return m;
}
