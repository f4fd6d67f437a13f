import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * DejaVu Sans from the dejavu-fonts-ttf package, embedded (subset) into every PDF: the same bytes
 * on every machine, unlike a system font, and it has the glyphs of engineering text (±, µ, °, –)
 * and of most Latin, Greek and Cyrillic names. Read once per process.
 */
let cached: { regular: Buffer; bold: Buffer } | null = null;

export function reportFonts(): { regular: Buffer; bold: Buffer } {
  if (!cached) {
    const dir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    cached = { regular: readFileSync(join(dir, 'DejaVuSans.ttf')), bold: readFileSync(join(dir, 'DejaVuSans-Bold.ttf')) };
  }
  return cached;
}
