import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCycles, relativeImportGraph } from '@mp/testing';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** services/<name>/src and packages/<name>/src of every workspace that has one. */
const sourceDirs = ['services', 'packages'].flatMap((top) =>
  readdirSync(join(root, top))
    .map((name) => join(root, top, name, 'src'))
    .filter((dir) => existsSync(dir)),
);

// A module that imports, through others, one that imports it sees half-initialised bindings at load
// and ties the two together for every later change; the sources keep none, type-only imports included.
describe('relative imports of the services and packages', () => {
  it('form no cycle', () => {
    const graph = relativeImportGraph(sourceDirs);
    expect(graph.size).toBeGreaterThan(100);
    const cycles = importCycles(graph).map((cycle) => cycle.map((file) => relative(root, file)).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('are found to form one when two modules import each other through a third', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
      writeFileSync(join(dir, 'b.ts'), "import type { C } from './nested/index.js';\nexport const b: C = 1;\n");
      writeFileSync(join(dir, 'leaf.ts'), 'export const leaf = 1;\n');
      const nested = join(dir, 'nested');
      mkdirSync(nested);
      writeFileSync(join(nested, 'index.ts'), "export { a } from '../a.js';\nimport '../leaf.js';\nexport type C = number;\n");
      const cycles = importCycles(relativeImportGraph([dir])).map((cycle) => cycle.map((file) => relative(dir, file)));
      expect(cycles).toEqual([['a.ts', 'b.ts', join('nested', 'index.ts'), 'a.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
