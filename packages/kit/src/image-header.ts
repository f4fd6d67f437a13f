/**
 * The type and size of an uploaded image, read from its own first bytes (never from a name or a
 * declared type): a PNG by its signature and IHDR chunk, a JPEG by its SOI marker and
 * start-of-frame segment. Anything else is null. Used where the API takes an image (the tenant's
 * logo, ADR 0108; a project's site plan, ADR 0121).
 */
export interface ImageHeader {
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

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

/** The image's type, or null when it is neither a PNG nor a JPEG. */
export function imageType(image: Buffer): ImageHeader['contentType'] | null {
  if (image.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (image[0] === 0xff && image[1] === 0xd8 && image[2] === 0xff) return 'image/jpeg';
  return null;
}

/**
 * The image's type and dimensions; `{ contentType, width: 0, height: 0 }` when the type is known
 * but no size can be read (a file cut short), null when it is neither a PNG nor a JPEG.
 */
export function imageHeader(image: Buffer): ImageHeader | null {
  const contentType = imageType(image);
  if (!contentType) return null;
  const size = (contentType === 'image/png' ? pngSize(image) : jpegSize(image)) ?? { width: 0, height: 0 };
  return { contentType, ...size };
}
