import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGBA PNG of `width` × `height` painted pixel by pixel (test logos, made without an image library). */
export function pngImage(width: number, height: number, paint: (x: number, y: number) => [number, number, number, number]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 4 + 1);
    for (let x = 0; x < width; x++) raw.set(paint(x, y), row + 1 + x * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A small logo: a blue rounded square with three white bars (a survey marker, more or less). */
export function sampleLogo(): Buffer {
  const size = 120;
  return pngImage(size * 3, size, (x, y) => {
    const inSquare = x < size && Math.hypot(Math.max(0, Math.abs(x - 60) - 42), Math.max(0, Math.abs(y - 60) - 42)) <= 16;
    if (!inSquare) {
      // A grey bar to the right: where the company's name would be in a real logo.
      const bar = x > size + 14 && x < size * 3 - 10 && ((y > 34 && y < 52) || (y > 64 && y < 76 && x < size * 2.3));
      return bar ? [40, 60, 90, 255] : [255, 255, 255, 0];
    }
    const stripe = x > 24 && x < 96 && [30, 55, 80].some((c) => Math.abs(y - c) < 6);
    return stripe ? [255, 255, 255, 255] : [31, 95, 191, 255];
  });
}
