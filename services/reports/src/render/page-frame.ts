import type PDFDocument from 'pdfkit';
import { CONTENT_WIDTH, MARGIN, PAGE } from './layout.js';

type Doc = InstanceType<typeof PDFDocument>;
/** An image pdfkit opened once (openImage, missing from its type definitions), embedded once however often it is placed. */
export type OpenedImage = { width: number; height: number };

export function openImage(doc: Doc, bytes: Uint8Array): OpenedImage {
  return (doc as unknown as { openImage(src: Buffer): OpenedImage }).openImage(Buffer.from(bytes));
}

export interface Frame {
  /** The tenant's name (null: not known); its logo, opened once and placed on every page. */
  tenantName: string | null;
  logo: OpenedImage | null;
  title: string;
  project: string;
  reportId: string;
  status: string;
}

/**
 * The header and footer of one page: the tenant's logo and name and the report's title and
 * project at the top, the report id, its status and "Page N of M" at the bottom. Drawn once every
 * page exists (the document buffers its pages), since M is known only then.
 */
export function drawFrame(doc: Doc, f: Frame, index: number, count: number): void {
  // Text below the bottom margin would open a new page; the footer is drawn with none.
  const margins = doc.page.margins;
  doc.page.margins = { ...margins, top: 0, bottom: 0 };
  doc.save();
  const top = 22;
  let x = MARGIN;
  if (f.logo) {
    const box = { w: 120, h: 34 };
    const scale = Math.min(box.w / f.logo.width, box.h / f.logo.height);
    doc.image(f.logo as unknown as Buffer, MARGIN, top, { width: f.logo.width * scale, height: f.logo.height * scale });
    x += f.logo.width * scale + 10;
  }
  if (f.tenantName) {
    doc
      .font('bold')
      .fontSize(10)
      .fillColor('#222222')
      .text(f.tenantName, x, top + 4, { width: MARGIN + CONTENT_WIDTH * 0.55 - x, height: 26, lineBreak: true, ellipsis: true });
  }
  const right = { x: MARGIN + CONTENT_WIDTH * 0.55, width: CONTENT_WIDTH * 0.45 };
  doc.font('regular').fontSize(7.5).fillColor('#444444');
  doc.text(f.title, right.x, top + 4, { width: right.width, align: 'right', height: 10, lineBreak: false, ellipsis: true });
  doc.text(f.project, right.x, top + 15, { width: right.width, align: 'right', height: 10, lineBreak: false, ellipsis: true });
  doc
    .lineWidth(0.5)
    .strokeColor('#999999')
    .moveTo(MARGIN, top + 40)
    .lineTo(MARGIN + CONTENT_WIDTH, top + 40)
    .stroke();

  const bottom = PAGE.height - 36;
  doc
    .moveTo(MARGIN, bottom - 6)
    .lineTo(MARGIN + CONTENT_WIDTH, bottom - 6)
    .stroke();
  doc.font('regular').fontSize(7.5).fillColor('#444444');
  doc.text(`Report ${f.reportId} · ${f.status}`, MARGIN, bottom, { width: CONTENT_WIDTH * 0.7, lineBreak: false, ellipsis: true });
  doc.text(`Page ${index + 1} of ${count}`, MARGIN + CONTENT_WIDTH * 0.7, bottom, { width: CONTENT_WIDTH * 0.3, align: 'right', lineBreak: false });
  doc.restore();
  doc.page.margins = margins;
}
