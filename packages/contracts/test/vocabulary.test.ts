import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as root from '@mp/contracts';
import * as vocabulary from '@mp/contracts/vocabulary';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** The modules a source file pulls in, read from its import and export-from statements. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(src, file), 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
}

// The console bundles @mp/contracts/vocabulary for the browser; the services and the tests import
// the same words from it, so nothing can drift.
describe('the shared vocabulary', () => {
  it('is browser-safe: it and every module it imports are plain relative modules, no Node built-ins or packages', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of importsOf(file)) {
        expect(`${file} imports ${spec}`).toMatch(/ imports \.\/[\w-]+\.js$/);
        visit(spec.replace(/^\.\//, '').replace(/\.js$/, '.ts'));
      }
    };
    visit('vocabulary.ts');
    expect([...seen].sort()).toEqual(['statuses.ts', 'vocabulary.ts']);
  });

  it("is the package root's too, and says what each permission means", () => {
    expect(root.PERMISSIONS).toBe(vocabulary.PERMISSIONS);
    expect(root.PROJECT_TRANSITIONS).toBe(vocabulary.PROJECT_TRANSITIONS);
    expect(Object.keys(vocabulary.PERMISSION_MEANINGS)).toEqual([...vocabulary.PERMISSIONS]);
    expect(vocabulary.DEVICE_TYPES.slice(0, vocabulary.SENSOR_TYPES.length)).toEqual([...vocabulary.SENSOR_TYPES]);
  });
});
