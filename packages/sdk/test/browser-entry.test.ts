import { fileURLToPath } from 'node:url';
import { importGraph, importsOutside } from '@mp/testing';
import { fetchTransport } from '../src/browser.js';
import { TransportError } from '../src/errors.js';
import { randomId } from '../src/random-id.js';

const src = fileURLToPath(new URL('../src/', import.meta.url));

// The console's Vite build only warns (and ships a broken stub) when a browser bundle imports a
// Node built-in, so the browser entry's promise is checked here, on its whole import graph.
describe('SDK browser entry', () => {
  it('imports nothing but its own modules: no Node built-in, no package', () => {
    const graph = importGraph(src, 'browser.ts');
    expect([...graph.keys()].sort()).toEqual(['browser.ts', 'client.ts', 'errors.ts', 'fetch-transport.ts', 'generated.ts', 'random-id.ts', 'transport.ts']);
    expect(importsOutside(graph)).toEqual([]);
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
