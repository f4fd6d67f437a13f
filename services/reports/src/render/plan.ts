import type PDFDocument from 'pdfkit';
import { NO_DATA_COLOUR, STATUS_COLOURS } from './layout.js';
import { niceStep, type PlotBox } from './plot.js';

type Doc = InstanceType<typeof PDFDocument>;

export interface PlanPoint {
  number: string;
  x: number;
  y: number;
  /** The status of its newest valid record in the period; null: none. */
  status: string | null;
}

/** Smallest extent the plan shows (m): points on one spot still get a readable plan around them. */
const MIN_SPAN = 10;
/** Room around the drawing inside its box: value labels left, legend right, coordinates and scale below. */
const PAD = { left: 52, right: 70, top: 8, bottom: 30 };

/**
 * The height a plan of `points` needs in a box `width` wide, between `min` and `max`: a site laid
 * out along a line (a tunnel, a road) gets a low plan, not a tall empty one.
 */
export function planHeight(points: PlanPoint[], width: number, min: number, max: number): number {
  const xs = points.map((p) => p.x),
    ys = points.map((p) => p.y);
  const w = width - PAD.left - PAD.right;
  const spanX = Math.max(Math.max(...xs) - Math.min(...xs), MIN_SPAN) * 1.2;
  const spanY = Math.max(Math.max(...ys) - Math.min(...ys), MIN_SPAN) * 1.2;
  const h = (spanY * w) / spanX + PAD.top + PAD.bottom;
  return Math.round(Math.min(max, Math.max(min, h)));
}

/**
 * The location plan: each point at its reference coordinates (x to the right, y up, one scale for
 * both, so distances and angles read true), marked in the colour of its latest status and labelled
 * with its number, with a metre grid and a scale bar. Labels that would overlap another are moved
 * down a line, so points on or near one spot stay legible.
 */
export function drawPlan(doc: Doc, box: PlotBox, points: PlanPoint[]): void {
  const inner = { left: box.x + PAD.left, right: box.x + box.width - PAD.right, top: box.y + PAD.top, bottom: box.y + box.height - PAD.bottom };
  const xs = points.map((p) => p.x),
    ys = points.map((p) => p.y);
  let [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const w = inner.right - inner.left,
    h = inner.bottom - inner.top;
  // One scale for both axes, with a tenth of the extent as room around the outer points.
  const scale = Math.min(w / (Math.max(x1 - x0, MIN_SPAN) * 1.2), h / (Math.max(y1 - y0, MIN_SPAN) * 1.2));
  const cx = (x0 + x1) / 2,
    cy = (y0 + y1) / 2;
  x0 = cx - w / 2 / scale;
  x1 = cx + w / 2 / scale;
  y0 = cy - h / 2 / scale;
  y1 = cy + h / 2 / scale;
  const px = (x: number) => inner.left + (x - x0) * scale;
  const py = (y: number) => inner.bottom - (y - y0) * scale;

  doc.save();
  doc.rect(inner.left, inner.top, w, h).fill('#fafafa');
  // Grid in metres, labelled with the coordinates.
  const step = niceStep(Math.max(x1 - x0, y1 - y0), 6);
  doc.lineWidth(0.25).strokeColor('#d6d6d6');
  doc.font('regular').fontSize(6).fillColor('#555555');
  for (let gx = Math.ceil(x0 / step) * step; gx <= x1; gx += step) {
    doc.moveTo(px(gx), inner.top).lineTo(px(gx), inner.bottom).stroke();
    doc.text(formatCoordinate(gx, step), px(gx) - 30, inner.bottom + 3, { width: 60, align: 'center', lineBreak: false });
  }
  for (let gy = Math.ceil(y0 / step) * step; gy <= y1; gy += step) {
    doc.moveTo(inner.left, py(gy)).lineTo(inner.right, py(gy)).stroke();
    doc.text(formatCoordinate(gy, step), box.x, py(gy) - 3, { width: 48, align: 'right', lineBreak: false });
  }
  doc.lineWidth(0.6).strokeColor('#555555').rect(inner.left, inner.top, w, h).stroke();
  doc.fontSize(6.5).fillColor('#333333');
  doc.text('x (m) →', inner.right - 40, inner.bottom + 12, { width: 40, align: 'right', lineBreak: false });
  doc.text('y (m) ↑', box.x, inner.top - 2, { width: 48, align: 'right', lineBreak: false });

  // Scale bar: one grid step.
  const barY = inner.bottom + 16;
  doc
    .lineWidth(1.2)
    .strokeColor('#333333')
    .moveTo(inner.left, barY)
    .lineTo(inner.left + step * scale, barY)
    .stroke();
  doc.text(`${formatCoordinate(step, step)} m`, inner.left + step * scale + 4, barY - 3, { lineBreak: false });

  // Points, then their labels clear of one another.
  const placed: { x: number; y: number; w: number; h: number }[] = [];
  doc.fontSize(6.5);
  for (const p of points) {
    const colour = p.status ? (STATUS_COLOURS[p.status] ?? NO_DATA_COLOUR) : NO_DATA_COLOUR;
    doc.circle(px(p.x), py(p.y), 3).fill(colour);
    const label = { x: px(p.x) + 5, y: py(p.y) - 4, w: doc.widthOfString(p.number) + 2, h: 8 };
    while (placed.some((o) => label.x < o.x + o.w && o.x < label.x + label.w && label.y < o.y + o.h && o.y < label.y + label.h)) label.y += 8;
    placed.push(label);
    doc.fillColor('#111111').text(p.number, label.x, label.y, { lineBreak: false });
  }

  // Legend, to the right of the plan.
  let ly = inner.top + 2;
  const lx = inner.right + 8;
  for (const [status, colour] of [...Object.entries(STATUS_COLOURS), ['no data', NO_DATA_COLOUR] as const]) {
    doc.circle(lx + 3, ly + 3, 3).fill(colour);
    doc.fillColor('#111111').text(status, lx + 9, ly, { lineBreak: false });
    ly += 11;
  }
  doc.restore();
}

/** A grid coordinate with as many decimals as the step needs (whole metres from 1 m up). */
function formatCoordinate(v: number, step: number): string {
  const decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : 2;
  return v.toFixed(decimals);
}
