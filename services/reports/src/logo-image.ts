import PDFDocument from 'pdfkit';
import { DomainError } from '@mp/errors';
import { imageHeader } from '@mp/kit';

/** Largest logo accepted: a logo is a few kilobytes; the bound keeps every report's memory small. */
export const MAX_LOGO_BYTES = 512 * 1024;
/** Largest side in pixels: a PNG is decoded whole (4 bytes a pixel) each time a report embeds it. */
export const MAX_LOGO_SIDE = 2000;

export type LogoType = 'image/png' | 'image/jpeg';

export interface CheckedLogo {
  contentType: LogoType;
  width: number;
  height: number;
}

const invalid = (detail: string) =>
  new DomainError('422103', {
    field: 'image',
    detail,
    suggestion: `Upload a PNG or JPEG of at most ${MAX_LOGO_BYTES / 1024} KiB and ${MAX_LOGO_SIDE} × ${MAX_LOGO_SIDE} pixels.`,
  });

/**
 * Checks an uploaded logo before it is kept (ADR 0108): its type by its magic bytes (not by what
 * the client claims), its size and its dimensions, and then that it really draws, by embedding it
 * into a PDF page the way every report will; a file that passes the header checks but is cut
 * short or corrupt is refused now rather than failing each report later.
 */
export async function checkLogo(image: Buffer): Promise<CheckedLogo> {
  if (image.length === 0) throw new DomainError('422101', { field: 'image', detail: 'image is empty.', suggestion: 'Send the logo file, base64-encoded.' });
  if (image.length > MAX_LOGO_BYTES) throw invalid(`The image is ${image.length} bytes; a logo is at most ${MAX_LOGO_BYTES} bytes.`);
  const header = imageHeader(image);
  if (!header) throw invalid('The image is neither a PNG nor a JPEG (checked by its first bytes).');
  const { contentType, ...size } = header;
  if (size.width < 1 || size.height < 1) throw invalid(`The ${contentType} has no readable width and height.`);
  if (size.width > MAX_LOGO_SIDE || size.height > MAX_LOGO_SIDE) {
    throw invalid(`The image is ${size.width} × ${size.height} pixels; a logo is at most ${MAX_LOGO_SIDE} pixels on each side.`);
  }
  await drawsInPdf(image).catch(() => {
    throw invalid(`The ${contentType} could not be read (cut short or corrupt).`);
  });
  return { contentType, ...size };
}

function drawsInPdf(image: Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const doc = new PDFDocument({ size: [100, 100], margin: 0, compress: false });
    doc.on('data', () => undefined);
    doc.on('end', resolve);
    doc.on('error', reject);
    try {
      doc.image(image, 0, 0, { fit: [100, 100] });
      doc.end();
    } catch (err) {
      reject(err as Error);
    }
  });
}
