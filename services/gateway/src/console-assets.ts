import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Context } from 'koa';
import { consoleDistDir } from '@mp/console';

export interface ConsoleAsset {
  body: Buffer;
  type: string;
  /** Hashed file names never change content: browsers may keep them for a year. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

let loaded: Promise<Map<string, ConsoleAsset>> | undefined;

/**
 * The built console, read into memory once per process (a few hundred kilobytes): a request can
 * name only a file that is in this map, so no path from a request ever reaches the file system.
 */
async function load(dir = consoleDistDir): Promise<Map<string, ConsoleAsset>> {
  const files = new Map<string, ConsoleAsset>();
  const add = async (name: string, immutable: boolean) => {
    const type = TYPES[extname(name)];
    if (type) files.set(name, { body: await readFile(join(dir, name)), type, immutable });
  };
  try {
    await add('index.html', false);
    for (const name of await readdir(join(dir, 'assets'))) await add(`assets/${name}`, true);
  } catch (err) {
    // Not built (a gateway started from sources without `npm run build`): /console answers 400001.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return files;
}

export async function consoleAsset(name: string): Promise<ConsoleAsset | undefined> {
  loaded ??= load();
  return (await loaded).get(name);
}

/**
 * The console's Content-Security-Policy: scripts, styles and API calls of this origin only, no
 * inline script or style element, no framing (frame-ancestors and X-Frame-Options for older
 * browsers), no forms posted anywhere (the console submits with fetch), no referrer.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

export function consolePageHeaders(ctx: Context, immutable: boolean): void {
  ctx.set({
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-store',
  });
}
