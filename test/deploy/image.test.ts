import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { httpsRequest } from '@mp/testing';
import { REPO_ROOT, startProcess, type StartedProcess } from '../support/process.js';
import { replayDockerfile, type Stage } from './support/dockerfile.js';

// ADR 0040: the image holds what runs and nothing of the builder's working folder. With no
// Docker engine here, the Dockerfile's own steps are replayed into a folder (support/dockerfile)
// from a build context that is this checkout plus what a builder's folder typically also holds.
const CANARY = 'CANARY-do-not-ship-8c1f0b';
const HAZARDS = [
  '.data/secrets.key',
  '.data/tls/tls.key',
  '.data/tls/tls.crt',
  '.data/identity/PG_VERSION',
  '.git/config',
  '.env',
  '.npmrc',
  'keys/gateway.key',
  'keys/tls/ca.crt',
  'deploy/helm/monitoring-platform/server.pem',
  'services/gateway/dist/stale-build.js',
  'services/gateway/node_modules/leftover/index.js',
  'node_modules/jest/package.json',
  'packages/kit/.turbo/turbo-build.log',
];
const DEV_PACKAGES = [
  'jest',
  'typescript',
  'eslint',
  'prettier',
  '@swc/core',
  '@swc/jest',
  'turbo',
  'ts-proto',
  '@bufbuild/buf',
  '@types/jest',
  'playwright-core',
  'fast-check',
];

function buildContext(dir: string) {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(REPO_ROOT, f))) continue;
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(REPO_ROOT, f), join(dir, f));
  }
  for (const h of HAZARDS) {
    mkdirSync(dirname(join(dir, h)), { recursive: true });
    writeFileSync(join(dir, h), `${CANARY}\n`);
  }
}

function walk(root: string, rel = ''): string[] {
  return readdirSync(join(root, rel)).flatMap((name) => {
    const path = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(root, path));
    return st.isDirectory() ? [path, ...walk(root, path)] : [path];
  });
}

describe('the image (deploy/docker/Dockerfile)', () => {
  let work: string;
  let final: Stage;
  let app: string;
  let files: string[];
  let proc: StartedProcess | null = null;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'mp-image-'));
    chmodSync(work, 0o755);
    const context = join(work, 'context');
    buildContext(context);
    ({ final } = replayDockerfile({
      dockerfile: join(context, 'deploy/docker/Dockerfile'),
      context,
      outDir: join(work, 'stages'),
    }));
    chmodSync(join(work, 'stages'), 0o755);
    app = join(final.root, final.workdir);
    files = walk(final.root);
  }, 900_000);
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('starts from an exact Node.js LTS release and runs as a numeric non-root user', () => {
    const [, major] = final.base.match(/^node:(\d+)\.\d+\.\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/)!;
    expect(Number(major) % 2).toBe(0);
    expect(Number(major)).toBeGreaterThanOrEqual(24);
    expect(final.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(final.env.NODE_ENV).toBe('production');
    expect(final.cmd).toEqual(['node', 'scripts/start.mjs']);
  });

  it('holds no secret, no version control and nothing of the builder’s folder', () => {
    expect(files.filter((f) => /(^|\/)\.git(\/|$)|\.(pem|key|crt|p12)$|(^|\/)\.env$|(^|\/)\.npmrc$|(^|\/)\.turbo(\/|$)/.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith(`${final.workdir.slice(1)}/.data/`))).toEqual([]);
    expect(existsSync(join(app, 'services/gateway/dist/stale-build.js'))).toBe(false);
    expect(existsSync(join(app, 'keys'))).toBe(false);
    // No planted file's content anywhere, under any name.
    const grep = spawnSync('grep', ['-rl', '--binary-files=text', CANARY, final.root], { encoding: 'utf8' });
    expect(grep.stdout).toBe('');
    expect(grep.status).toBe(1);
  });

  it('holds the production dependencies only, and the compiled code without its sources or tests', () => {
    const modules = join(app, 'node_modules');
    expect(DEV_PACKAGES.filter((p) => existsSync(join(modules, p)))).toEqual([]);
    // Everything installed is a production package by the lockfile's own account.
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const installed = files
      .filter((f) => /\/node_modules\/(@[^/]+\/)?[^@/][^/]*\/package\.json$/.test(f))
      .map((f) => f.slice(f.indexOf('node_modules/'), -'/package.json'.length));
    expect(installed.length).toBeGreaterThan(50);
    expect(installed.filter((p) => !lock.packages[p] || lock.packages[p]!.dev === true)).toEqual([]);
    for (const p of ['@grpc/grpc-js', 'koa', 'pg', '@electric-sql/pglite', 'zod', 'jose']) expect(existsSync(join(modules, p, 'package.json'))).toBe(true);
    const own = files
      .filter((f) => f.startsWith(`${final.workdir.slice(1)}/`) && !f.includes('/node_modules/'))
      .map((f) => relative(final.workdir.slice(1), f));
    expect(own.filter((f) => /(^|\/)(src|test)(\/|$)|\.tsbuildinfo$|tsconfig/.test(f))).toEqual([]);
    for (const service of readdirSync(join(REPO_ROOT, 'services'))) {
      if (existsSync(join(REPO_ROOT, 'services', service, 'src/main.ts'))) expect(existsSync(join(app, 'services', service, 'dist/main.js'))).toBe(true);
    }
  });

  it('gives the runtime user its data folder, a volume, and nothing else to write', () => {
    const data = statSync(join(app, '.data'));
    const [uid] = final.user.split(':').map(Number);
    expect(data.uid).toBe(uid);
    expect(data.mode & 0o777).toBe(0o700);
    expect(final.volumes).toEqual([`${final.workdir}/.data`]);
    expect(statSync(app).uid).not.toBe(uid);
  });

  it('runs the default command as that user from the image tree: the embedded platform starts and serves', async () => {
    const [uid, gid] = final.user.split(':').map(Number) as [number, number];
    const env: Record<string, string> = {
      PATH: process.env.PATH!,
      HOME: join(app, '.data'),
      ...final.env,
      MP_HTTPS_PORT: '0',
      MP_SANDBOX_HTTPS_PORT: '0',
      MP_BIND_HOST: '127.0.0.1',
      MP_OPS_PORT: '0',
      MP_LOG_LEVEL: 'warn',
    };
    proc = startProcess(final.cmd[0]!, final.cmd.slice(1), { env, cwd: app, ...(process.getuid?.() === 0 ? { uid, gid } : {}) });
    const [, url] = await proc.waitForOutput(/Live API:\s+(https:\/\/\S+)/, 180_000);
    const [, username, password] = (await proc.waitForOutput(/username "([^"]+)", password "([^"]+)"/))!;
    const ca = readFileSync(join(app, '.data/tls/tls.crt'), 'utf8');
    const login = await httpsRequest(`${url!.replace('localhost', '127.0.0.1')}/auth/login`, {
      method: 'POST',
      ca,
      body: { username, password, grant_type: 'password' },
    });
    expect(login.status).toBe(200);
    expect(statSync(join(app, '.data/tls/tls.key')).uid).toBe(uid);
    expect(await proc.stop('SIGTERM', 30_000)).toBe(0);
    proc = null;
  });
});
