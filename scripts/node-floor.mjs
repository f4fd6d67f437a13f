// The lowest Node.js the installed packages accept, from the `engines` of every package in
// package-lock.json, and two checks CI runs (.ci/run):
// - the floor the project states (package.json `engines.node`, the README) is that one;
// - the Node.js running now meets every package's `engines` (so CI runs on a supported Node).
// `--stated` does the first check only. Exit 1 with one line per problem.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const parse = (v) =>
  v
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
const cmp = (a, b) => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
};

/** Whether version `v` meets one comparator (`>=1.2.3`, `^1.2`, `~1.2.3`, `1.x`, `20`, …). */
function meets(v, comparator) {
  const m = comparator.match(/^(>=|<=|>|<|\^|~|=)?\s*v?([\d.x*]+)$/);
  if (!m) return true; // a form no engines field here uses: not ours to refuse
  const [, op = '', raw] = m;
  const parts = raw.split('.').filter((p) => p !== 'x' && p !== '*');
  const base = parse(parts.join('.'));
  const c = cmp(v, base);
  if (op === '>=') return c >= 0;
  if (op === '>') return c > 0;
  if (op === '<=') return c <= 0;
  if (op === '<') return c < 0;
  if (op === '^') return c >= 0 && v[0] === base[0] && (base[0] !== 0 || v[1] === base[1]);
  if (op === '~') return c >= 0 && v[0] === base[0] && v[1] === base[1];
  // bare or partial version: the same major (and minor, patch when given)
  return parts.every((p, i) => v[i] === base[i]);
}
const satisfies = (v, range) =>
  range
    .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
    .split('||')
    .some((set) =>
      set
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .every((c) => meets(v, c)),
    );

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const ranges = Object.entries(lock.packages)
  .filter(([path, p]) => path.includes('node_modules/') && typeof p.engines?.node === 'string')
  .map(([path, p]) => ({ name: path.replace(/.*node_modules\//, ''), range: p.engines.node }));

// The floor: the lowest version named in any range that every range accepts.
const candidates = [...new Set(ranges.flatMap((r) => r.range.match(/\d+(\.\d+){0,2}/g) ?? []))].map(parse).sort(cmp);
const floorParts = candidates.find((v) => ranges.every((r) => satisfies(v, r.range)));
const floor = floorParts.map((n) => String(n)).join('.');

const problems = [];
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (pkg.engines?.node !== `>=${floor}`)
  problems.push(
    `package.json engines.node is ${JSON.stringify(pkg.engines?.node)}, but the installed packages need Node.js >=${floor}: set it to ">=${floor}".`,
  );
if (!readFileSync(join(root, 'README.md'), 'utf8').includes(`Node.js ≥ ${floor}`)) problems.push(`README.md does not state the floor "Node.js ≥ ${floor}".`);
if (!process.argv.includes('--stated')) {
  const running = parse(process.version);
  const refusing = ranges.filter((r) => !satisfies(running, r.range));
  if (refusing.length)
    problems.push(
      `Node.js ${process.version} is below the floor ${floor}: ${refusing.length} packages refuse it (${[...new Set(refusing.map((r) => `${r.name} ${r.range}`))].slice(0, 3).join(', ')}, …); run CI on Node.js ${floor} or later.`,
    );
}
for (const p of problems) process.stderr.write(`node-floor: ${p}\n`);
if (problems.length) process.exit(1);
process.stdout.write(
  `node-floor: Node.js >=${floor} (stated in package.json and README.md)${process.argv.includes('--stated') ? '' : `; running ${process.version}`}\n`,
);
