import { fileURLToPath } from 'node:url';
import * as root from '@mp/contracts';
import * as vocabulary from '@mp/contracts/vocabulary';
import { importGraph, importsOutside } from '@mp/testing';

const src = fileURLToPath(new URL('../src/', import.meta.url));

// The console bundles @mp/contracts/vocabulary for the browser; the services and the tests import
// the same words from it, so nothing can drift.
describe('the shared vocabulary', () => {
  it('is browser-safe: it and every module it imports are its own plain modules, no Node built-in, no package', () => {
    const graph = importGraph(src, 'vocabulary.ts');
    expect([...graph.keys()].sort()).toEqual(['sensor-types.ts', 'statuses.ts', 'vocabulary.ts']);
    expect(importsOutside(graph)).toEqual([]);
  });

  it("is the package root's too, and says what each permission means", () => {
    expect(root.PERMISSIONS).toBe(vocabulary.PERMISSIONS);
    expect(root.PROJECT_TRANSITIONS).toBe(vocabulary.PROJECT_TRANSITIONS);
    expect(Object.keys(vocabulary.PERMISSION_MEANINGS)).toEqual([...vocabulary.PERMISSIONS]);
    expect(vocabulary.DEVICE_TYPES.slice(0, vocabulary.SENSOR_TYPES.length)).toEqual([...vocabulary.SENSOR_TYPES]);
  });
});
