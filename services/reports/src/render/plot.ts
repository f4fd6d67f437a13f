import type PDFDocument from 'pdfkit';

type Doc = InstanceType<typeof PDFDocument>;
import type { Axis, PointData } from '../gather.js';
import { axisTime, mm } from './format.js';

export const AXIS_COLOURS: Record<Axis, string> = { dx: '#1f5fbf', dy: '#1a8a3a', dz: '#b3261e' };
const WARNING_FILL = '#fff1c2';
const ALARM_FILL = '#f9d0cc';
/** An instrument channel's line, and its trigger levels' lines by level. */
const CHANNEL_COLOUR = '#1f5fbf';
const LEVEL_COLOURS: Record<string, string> = { warning: '#d08a00', alarm: '#c0392b', action: '#7b1010' };

export interface PlotBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A tick step of 1, 2 or 5 × 10^n giving about `n` ticks over `span`. */
export function niceStep(span: number, n: number): number {
  const raw = span / n;
  const pow = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * pow >= raw) ?? 10) * pow;
}

/**
 * The time history of dx, dy and dz (bucket means, a line per axis) over the period, drawn as
 * vector paths straight into the page, with the warning band (between ±warning and ±alarm) and
 * the alarm band (beyond ±alarm) shaded behind it. A gap in the data breaks the lines.
 */
export function drawPlot(doc: Doc, box: PlotBox, p: PointData, from: number, to: number, timeZone: string, intervalMs: number): void {
  const { x, y, width, height } = box;
  const left = x + 48,
    right = x + width - 8,
    top = y + 14,
    bottom = y + height - 34;
  // an instrument point: one line, its channel's bucket means (`value`), with its trigger levels
  const channel = p.point.channel;
  const keys = channel ? (['value'] as const) : (['dx', 'dy', 'dz'] as const);
  const levelValues = channel ? channel.levels.flatMap((l) => [l.above, l.below]).filter((v): v is number => v !== null) : [];
  let lo = channel ? Math.min(...levelValues, Infinity) : Math.min(-p.point.alarm * 1.15, 0),
    hi = channel ? Math.max(...levelValues, -Infinity) : Math.max(p.point.alarm * 1.15, 0);
  for (const b of p.buckets) {
    for (const a of keys) {
      const s = b[a];
      if (s) {
        lo = Math.min(lo, s.avg);
        hi = Math.max(hi, s.avg);
      }
    }
  }
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
    lo = 0;
    hi = 1;
  }
  if (hi - lo < 1e-9) hi = lo + 1;
  const step = niceStep(hi - lo, 6);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const sx = (t: number) => left + ((t - from) / (to - from)) * (right - left);
  const sy = (v: number) => bottom - ((v - lo) / (hi - lo)) * (bottom - top);
  const clampY = (v: number) => Math.min(bottom, Math.max(top, sy(v)));

  doc.save();
  // Bands: alarm beyond ±alarm, warning between ±warning and ±alarm.
  const band = (a: number, b: number, colour: string) => {
    const y1 = clampY(Math.max(a, b)),
      y2 = clampY(Math.min(a, b));
    if (y2 > y1) doc.rect(left, y1, right - left, y2 - y1).fill(colour);
  };
  if (!channel) {
    band(p.point.alarm, hi, ALARM_FILL);
    band(-p.point.alarm, lo, ALARM_FILL);
    band(p.point.warning, p.point.alarm, WARNING_FILL);
    band(-p.point.warning, -p.point.alarm, WARNING_FILL);
  }

  // Grid and value axis.
  doc.lineWidth(0.3).strokeColor('#c8c8c8');
  doc.font('regular').fontSize(7).fillColor('#333333');
  for (let v = lo; v <= hi + step / 2; v += step) {
    doc.moveTo(left, sy(v)).lineTo(right, sy(v)).stroke();
    doc.text(mm(v, step < 1 ? (step < 0.1 ? 2 : 1) : 0), x, sy(v) - 3.5, { width: 44, align: 'right', lineBreak: false });
  }
  // Time axis: five dates.
  for (let i = 0; i <= 4; i++) {
    const t = from + ((to - from) * i) / 4;
    doc.moveTo(sx(t), top).lineTo(sx(t), bottom).stroke();
    doc.text(axisTime(t, to - from, timeZone), sx(t) - 35, bottom + 4, { width: 70, align: 'center', lineBreak: false });
  }
  doc
    .lineWidth(0.6)
    .strokeColor('#555555')
    .rect(left, top, right - left, bottom - top)
    .stroke();
  doc.fontSize(7).text(channel ? channel.unit : 'mm', x, y, { width: 44, align: 'right', lineBreak: false });
  // An instrument's trigger levels: a dashed line at each limit.
  if (channel) {
    for (const l of channel.levels) {
      for (const v of [l.above, l.below]) {
        if (v === null) continue;
        doc
          .lineWidth(0.8)
          .strokeColor(LEVEL_COLOURS[l.level] ?? '#555555')
          .dash(3, { space: 2 })
          .moveTo(left, clampY(v))
          .lineTo(right, clampY(v))
          .stroke()
          .undash();
      }
    }
  }

  // One polyline per axis through the bucket means. Buckets are finer than the readings when the
  // period is short (hourly readings, 7-minute buckets), so a gap is a step well beyond the usual
  // one between filled buckets, not merely an empty bucket.
  const starts = p.buckets.map((b) => Date.parse(b.start));
  const steps = starts
    .slice(1)
    .map((t, i) => t - starts[i]!)
    .sort((m, n) => m - n);
  const usual = steps.length ? steps[Math.floor(steps.length / 2)]! : intervalMs;
  const gap = Math.max(intervalMs * 1.5, usual * 3);
  for (const a of keys) {
    const colour = a === 'value' ? CHANNEL_COLOUR : AXIS_COLOURS[a];
    doc.lineWidth(0.9).strokeColor(colour).fillColor(colour);
    let prev: number | null = null;
    let run: [number, number][] = [];
    const flush = () => {
      if (run.length === 1) doc.circle(run[0]![0], run[0]![1], 1.2).fill();
      else if (run.length > 1) {
        doc.moveTo(run[0]![0], run[0]![1]);
        for (const [px, py] of run.slice(1)) doc.lineTo(px, py);
        doc.stroke();
      }
      run = [];
    };
    for (const b of p.buckets) {
      const s = b[a];
      const t = Date.parse(b.start);
      if (!s) continue;
      if (prev !== null && t - prev > gap) flush();
      run.push([sx(Math.max(t, from) + Math.min(intervalMs, to - Math.max(t, from)) / 2), sy(s.avg)]);
      prev = t;
    }
    flush();
  }

  // Legend.
  let lx = left;
  const ly = bottom + 18;
  if (channel) {
    doc
      .lineWidth(1.5)
      .strokeColor(CHANNEL_COLOUR)
      .moveTo(lx, ly + 3)
      .lineTo(lx + 14, ly + 3)
      .stroke();
    doc.fillColor('#000000').text(`${channel.name} (${channel.unit})`, lx + 17, ly, { lineBreak: false });
    lx += 120;
    for (const l of channel.levels) {
      const limit = [l.above !== null ? `> ${mm(l.above, 1)}` : '', l.below !== null ? `< ${mm(l.below, 1)}` : ''].filter(Boolean).join(', ');
      doc
        .lineWidth(1.5)
        .strokeColor(LEVEL_COLOURS[l.level] ?? '#555555')
        .moveTo(lx, ly + 3)
        .lineTo(lx + 14, ly + 3)
        .stroke();
      doc.fillColor('#000000').text(`${l.level} ${limit} ${channel.unit}`, lx + 17, ly, { lineBreak: false });
      lx += 110;
    }
    doc.restore();
    return;
  }
  for (const a of ['dx', 'dy', 'dz'] as const) {
    doc
      .lineWidth(1.5)
      .strokeColor(AXIS_COLOURS[a])
      .moveTo(lx, ly + 3)
      .lineTo(lx + 14, ly + 3)
      .stroke();
    doc.fillColor('#000000').text(a, lx + 17, ly, { lineBreak: false });
    lx += 42;
  }
  doc.rect(lx, ly, 14, 7).fill(WARNING_FILL);
  doc.fillColor('#000000').text(`warning ±${mm(p.point.warning, 1)} mm`, lx + 17, ly, { lineBreak: false });
  lx += 100;
  doc.rect(lx, ly, 14, 7).fill(ALARM_FILL);
  doc.fillColor('#000000').text(`alarm ±${mm(p.point.alarm, 1)} mm`, lx + 17, ly, { lineBreak: false });
  doc.restore();
}
