// Completes package-lock.json with the other platforms' optional binaries (swc, turbo, buf,
// unrs-resolver) that the npm registry mirror of our build machines does not serve, so that
// `npm ci` accepts the lockfile on every platform. See docs/adr/0050-lockfile-every-platform.md.
//
// npm drops an optional dependency from the lockfile when its manifest cannot be fetched; `npm ci`
// then refuses the lockfile as out of sync with package.json. Each missing package is recorded as
// npm would record it, with the os/cpu/libc its name declares, so that npm skips it on other
// platforms without a fetch; it carries no integrity (the mirror cannot give one), which npm
// accepts: the platform that installs it checks the registry's own signature on fetch.
//
// Runs as the root `postinstall` (after npm has written the lockfile) and prints what it added;
// `--check` exits 1 instead of writing, for CI.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const check = process.argv.includes('--check');

const OS = {
  darwin: 'darwin',
  win32: 'win32',
  windows: 'win32',
  linux: 'linux',
  android: 'android',
  freebsd: 'freebsd',
  openbsd: 'openbsd',
  netbsd: 'netbsd',
  sunos: 'sunos',
  aix: 'aix',
  openharmony: 'openharmony',
};
const CPU = {
  arm64: 'arm64',
  aarch64: 'arm64',
  x64: 'x64',
  64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  armv7: 'arm',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
};
const LIBC = { gnu: 'glibc', gnueabihf: 'glibc', musl: 'musl', musleabihf: 'musl' };

/** The os/cpu/libc a platform package's name declares, or null for a name that is no platform. */
export function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const os = tokens.map((t) => OS[t]).find(Boolean);
  const cpu = tokens.map((t) => CPU[t]).find(Boolean);
  if (!os || !cpu) return null;
  const libc = tokens.map((t) => LIBC[t]).find(Boolean);
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) };
}

const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;
const present = new Set(Object.keys(packages).map((path) => path.replace(/^.*node_modules\//, '')));
const added = [];
const unknown = [];

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (present.has(name)) continue;
    const platform = platformOf(name);
    if (!platform) {
      unknown.push(`${name} (optional dependency of ${path || 'the root'})`);
      continue;
    }
    // Hoisted to the top like npm places a dependency no other version claims; keys in npm's
    // own order, so that a later `npm install` rewrites nothing.
    packages[`node_modules/${name}`] = {
      version,
      cpu: platform.cpu,
      ...(entry.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: platform.libc } : {}),
      optional: true,
      os: platform.os,
    };
    present.add(name);
    added.push(`${name}@${version}`);
  }
}

if (unknown.length > 0) {
  console.error(`lockfile-platforms: optional dependencies missing from package-lock.json that name no platform:\n  ${unknown.join('\n  ')}`);
  process.exit(1);
}
if (added.length > 0) {
  if (check) {
    console.error(
      `lockfile-platforms: package-lock.json lacks ${added.length} platform binaries (run \`node scripts/lockfile-platforms.mjs\`): ${added.join(', ')}`,
    );
    process.exit(1);
  }
  lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'))));
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`lockfile-platforms: recorded ${added.length} other platforms' optional binaries in package-lock.json`);
}
