import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

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

/** Every `.ts` file below `dir` (declaration files and node_modules aside), as absolute paths. */
function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : typeScriptFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names: `./x.js` is `x.ts` in the sources, `./dir/index.js` or `./dir` its index. */
function resolveRelative(from: string, specifier: string): string {
  const target = resolve(dirname(from), specifier.replace(/\.js$/, '.ts'));
  if (existsSync(target)) return target;
  const index = join(target.replace(/\.ts$/, ''), 'index.ts');
  return existsSync(index) ? index : target;
}

/**
 * The relative imports of every TypeScript file below `dirs`, as file → imported files. Type-only
 * imports and re-exports count: a cycle of types still ties the modules together.
 */
export function relativeImportGraph(dirs: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap(typeScriptFiles)) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map(
      (m) => (m[1] ?? m[2])!,
    );
    graph.set(file, [...new Set(specifiers.map((s) => resolveRelative(file, s)))]);
  }
  return graph;
}

/**
 * The import cycles of a graph, one per strongly connected group of files, each as the files of
 * one closed path through the group (the first file repeated at the end). Empty when there is none.
 */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, order.size);
    low.set(v, order.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) !== order.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)!.includes(v)) groups.push(group);
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return groups.map((group) => closedPath(graph, new Set(group), [...group].sort()[0]!));
}

/** A path from `start` back to itself through `group` (breadth first, so a shortest one). */
function closedPath(graph: Map<string, string[]>, group: Set<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!group.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
