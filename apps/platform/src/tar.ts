/**
 * The few lines of tar (ustar) a backup file needs: regular files with a name and a mode, so that
 * an operator can look into one with `tar -tzvf` and take a file out by hand.
 */
export interface TarEntry {
  name: string;
  mode: number;
  data: Uint8Array;
}

const BLOCK = 512;

function field(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, length, 'utf8');
}

const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0') + '\0';

function headerOf(entry: TarEntry, mtime: number): Buffer {
  const name = Buffer.from(entry.name, 'utf8');
  if (name.length > 100) throw new Error(`tar entry name over 100 bytes: ${entry.name}`);
  const h = Buffer.alloc(BLOCK);
  name.copy(h, 0);
  field(h, 100, 8, octal(entry.mode & 0o7777, 8));
  field(h, 108, 8, octal(0, 8));
  field(h, 116, 8, octal(0, 8));
  field(h, 124, 12, octal(entry.data.length, 12));
  field(h, 136, 12, octal(mtime, 12));
  field(h, 148, 8, '        ');
  field(h, 156, 1, '0');
  field(h, 257, 6, 'ustar\0');
  field(h, 263, 2, '00');
  let sum = 0;
  for (const b of h) sum += b;
  field(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

export function writeTar(entries: TarEntry[]): Buffer {
  const mtime = Math.floor(Date.now() / 1000);
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(headerOf(entry, mtime), Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.length));
    const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** The regular files of a tar; anything else (folders, links) is skipped. */
export function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let at = 0;
  while (at + BLOCK <= tar.length) {
    const h = tar.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break;
    const text = (offset: number, length: number) => h.toString('utf8', offset, offset + length).replace(/\0.*$/s, '');
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== Number.parseInt(text(148, 8).trim(), 8)) throw new Error('not a backup file (a damaged or foreign tar header)');
    const size = Number.parseInt(text(124, 12).trim() || '0', 8);
    const prefix = text(345, 155);
    const name = prefix ? `${prefix}/${text(0, 100)}` : text(0, 100);
    const type = text(156, 1) || '0';
    const start = at + BLOCK;
    if (start + size > tar.length) throw new Error('the backup file is cut short');
    if (type === '0') entries.push({ name, mode: Number.parseInt(text(100, 8).trim() || '644', 8), data: tar.subarray(start, start + size) });
    at = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
