import PDFDocument from 'pdfkit';
import { DomainError } from '@mp/errors';

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

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const invalid = (detail: string) =>
  new DomainError('422103', {
    field: 'image',
    detail,
    suggestion: `Upload a PNG or JPEG of at most ${MAX_LOGO_BYTES / 1024} KiB and ${MAX_LOGO_SIDE} × ${MAX_LOGO_SIDE} pixels.`,
  });

/** Width and height from a PNG's IHDR chunk, which the format requires first. */
function pngSize(b: Buffer): { width: number; height: number } | null {
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** Width and height from a JPEG's start-of-frame segment (baseline, progressive or lossless). */
function jpegSize(b: Buffer): { width: number; height: number } | null {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    // Markers without a length: RSTn, SOI, TEM.
    if ((marker >= 0xd0 && marker <= 0xd8) || marker === 0x01) {
      i += 2;
      continue;
    }
    const length = b.readUInt16BE(i + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    if (marker === 0xda || length < 2) return null;
    i += 2 + length;
  }
  return null;
}

/**
 * Checks an uploaded logo before it is kept (ADR 0108): its type by its magic bytes (not by what
 * the client claims), its size and its dimensions, and then that it really draws, by embedding it
 * into a PDF page the way every report will; a file that passes the header checks but is cut
 * short or corrupt is refused now rather than failing each report later.
 */
export async function checkLogo(image: Buffer): Promise<CheckedLogo> {
  if (image.length === 0) throw new DomainError('422101', { field: 'image', detail: 'image is empty.', suggestion: 'Send the logo file, base64-encoded.' });
  if (image.length > MAX_LOGO_BYTES) throw invalid(`The image is ${image.length} bytes; a logo is at most ${MAX_LOGO_BYTES} bytes.`);
  let contentType: LogoType;
  let size: { width: number; height: number } | null;
  if (image.subarray(0, 8).equals(PNG_SIGNATURE)) {
    contentType = 'image/png';
    size = pngSize(image);
  } else if (image[0] === 0xff && image[1] === 0xd8 && image[2] === 0xff) {
    contentType = 'image/jpeg';
    size = jpegSize(image);
  } else {
    throw invalid('The image is neither a PNG nor a JPEG (checked by its first bytes).');
  }
  if (!size || size.width < 1 || size.height < 1) throw invalid(`The ${contentType} has no readable width and height.`);
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
