import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every module specifier that `file` (below `dir`) imports or re-exports, and those of its
 * relative imports in turn, by file. A browser entry point checks with it that it pulls in no
 * Node built-in and no package: Vite only warns, and ships a broken stub, when one does.
 */
export function importGraph(dir: string, file: string, seen = new Map<string, string[]>()): Map<string, string[]> {
  if (seen.has(file)) return seen;
  const text = readFileSync(join(dir, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => (m[1] ?? m[2])!);
  seen.set(file, specifiers);
  for (const s of specifiers) if (s.startsWith('./')) importGraph(dir, s.slice(2).replace(/\.js$/, '.ts'), seen);
  return seen;
}

/** The imports of a graph that leave its own modules, as `file → specifier`. */
export const importsOutside = (graph: Map<string, string[]>): string[] =>
  [...graph.entries()].flatMap(([file, specs]) => specs.filter((s) => !s.startsWith('./')).map((s) => `${file} → ${s}`));
