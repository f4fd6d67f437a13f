import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fetchTransport } from '../src/browser.js';
import { TransportError } from '../src/errors.js';
import { randomId } from '../src/random-id.js';

const src = (file: string) => fileURLToPath(new URL(`../src/${file}`, import.meta.url));

/** Every module specifier that `file` imports or re-exports, and those of its relative imports in turn. */
function importGraph(file: string, seen = new Map<string, string[]>()): Map<string, string[]> {
  if (seen.has(file)) return seen;
  const text = readFileSync(src(file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => (m[1] ?? m[2])!);
  seen.set(file, specifiers);
  for (const s of specifiers) if (s.startsWith('./')) importGraph(s.slice(2).replace(/\.js$/, '.ts'), seen);
  return seen;
}

// The console's Vite build only warns (and ships a broken stub) when a browser bundle imports a
// Node built-in, so the browser entry's promise is checked here, on its whole import graph.
describe('SDK browser entry', () => {
  it('imports nothing but its own modules: no Node built-in, no package', () => {
    const graph = importGraph('browser.ts');
    expect([...graph.keys()].sort()).toEqual(['browser.ts', 'client.ts', 'errors.ts', 'fetch-transport.ts', 'generated.ts', 'random-id.ts', 'transport.ts']);
    const outside = [...graph.entries()].flatMap(([file, specs]) => specs.filter((s) => !s.startsWith('./')).map((s) => `${file} → ${s}`));
    expect(outside).toEqual([]);
  });

  it('refuses a ca it cannot honour instead of ignoring it', async () => {
    const err = await fetchTransport({ method: 'GET', url: new URL('https://127.0.0.1:1/v3/me'), headers: {}, ca: 'PEM', timeoutMs: 1000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).message).toMatch(/nodeTransport/);
  });

  const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('makes v4 UUIDs for Idempotency-Key, unique per call', () => {
    const ids = new Set(Array.from({ length: 100 }, randomId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(v4);
  });

  it('makes them from getRandomValues where randomUUID is missing (a page served over plain http)', () => {
    // An own property hides the prototype's method, as an insecure context does; deleting it restores it.
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      const ids = new Set(Array.from({ length: 100 }, randomId));
      expect(ids.size).toBe(100);
      for (const id of ids) expect(id).toMatch(v4);
    } finally {
      delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    }
    expect(typeof globalThis.crypto.randomUUID).toBe('function');
  });
});
