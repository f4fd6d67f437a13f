import { execFile } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { httpsRequest } from '@mp/testing';
import { REPO_ROOT, type StartedProcess, startProcess, userEnv } from '../support/process.js';

// The embedded platform's data folder as an operator on a shared machine meets it: owner-only
// files whatever the umask, one process at a time on it (a maintenance command run beside
// `npm start` refuses instead of damaging the database), Ctrl-C that lets requests in flight
// finish, and a damaged database that says so.
describe('npm start: the data folder', () => {
  let dataDir: string;
  let proc: StartedProcess | null = null;
  let base = '';
  const username = 'operator';
  const password = 'Harbour-Wall-Admin-2026';
  const env = () => userEnv(dataDir, { MP_ADMIN_USERNAME: username, MP_ADMIN_PASSWORD: password });
  /** `node scripts/start.mjs` under a umask of 000, as a careless shell profile leaves it. */
  const start = async () => {
    proc = startProcess('sh', ['-c', 'umask 000 && exec node scripts/start.mjs'], { env: env() });
    const [, url] = await proc.waitForOutput(/Live API:\s+(https:\/\/\S+)/, 90_000);
    await proc.waitForOutput(/Press Ctrl-C to stop/);
    base = url!.replace('localhost', '127.0.0.1');
  };
  const ca = () => readFileSync(join(dataDir, 'tls', 'tls.crt'), 'utf8');
  const call = (method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
    httpsRequest(`${base}${path}`, { method, ca: ca(), ...opts });
  const signIn = async () => {
    const res = await call('POST', '/auth/login', { body: { username, password, grant_type: 'password' } });
    expect(res.status).toBe(200);
    return { authorization: `Bearer ${res.body.data.access_token as string}` };
  };
  /** The exit code of the platform's process, once it has exited by itself. */
  const exitOf = (p: StartedProcess) =>
    p.child.exitCode !== null ? Promise.resolve(p.child.exitCode) : new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code)));
  /** A command of the repository run on the data folder: its exit code and everything it wrote. */
  const command = (script: string) =>
    new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, [script], { cwd: REPO_ROOT, env: env() as NodeJS.ProcessEnv }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-data-folder-'));
    // A folder an earlier version (or a careless copy) left open to everyone.
    chmodSync(dataDir, 0o777);
    mkdirSync(join(dataDir, 'old'), { mode: 0o777 });
    writeFileSync(join(dataDir, 'old', 'notes.txt'), 'left behind\n', { mode: 0o666 });
    chmodSync(join(dataDir, 'old', 'notes.txt'), 0o666);
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  let projectId = '';

  it('keeps the folder and everything in it to its owner (0700/0600) under a umask of 000', async () => {
    await start();
    const project = await call('POST', '/projects', { headers: await signIn(), body: { name: 'Harbour wall', number: 'HW-1', start_date: '2026-01-01' } });
    expect(project.status).toBe(200);
    projectId = project.body.data.id;

    const open: string[] = [];
    let files = 0;
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        const mode = lstatSync(path).mode & 0o777;
        if (entry.isDirectory()) {
          if (mode !== 0o700) open.push(`${path} ${mode.toString(8)}`);
          walk(path);
        } else if (entry.isFile()) {
          files++;
          if (mode !== 0o600) open.push(`${path} ${mode.toString(8)}`);
        }
      }
    };
    expect((lstatSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    walk(dataDir);
    expect(files).toBeGreaterThan(100); // the embedded database's files are among them
    expect(open).toEqual([]);
  }, 150_000);

  it('refuses a maintenance command on the folder while the platform runs, naming the process and what to do', async () => {
    const pid = Number(readFileSync(join(dataDir, 'platform.lock'), 'utf8'));
    const { code, output } = await command('services/monitoring-data/dist/rebuild-rollups.js');
    expect(code).toBe(1);
    expect(output).not.toMatch(/rollups rebuilt/);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('MP_DATA_DIR');
    expect(lines[0]).toContain(`is in use by process ${pid}`);
    expect(lines[0]).toMatch(/stop it first/);
    // the platform still serves
    const project = await call('GET', `/projects/${projectId}`, { headers: await signIn() });
    expect(project.status).toBe(200);
  }, 60_000);

  it('on Ctrl-C answers a request in flight in full and refuses new connections', async () => {
    const port = Number(new URL(base).port);
    const body = JSON.stringify({ username, password, grant_type: 'password' });
    const socket = tls.connect({ host: '127.0.0.1', port, ca: ca(), servername: 'localhost' });
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const socketError = new Promise<Error | null>((resolve) => {
      socket.once('error', resolve);
      socket.once('close', () => resolve(null));
    });
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    // The headers and half the body; `100 Continue` says the gateway holds the request.
    socket.write(
      `POST /v3/auth/login HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise<void>((resolve) => {
      const check = () => (received.includes('100 Continue') ? (socket.off('data', check), resolve()) : undefined);
      socket.on('data', check);
      check();
    });

    process.kill(proc!.child.pid!, 'SIGINT');
    await proc!.waitForOutput(/Stopping: new connections are refused/);
    const refused = await new Promise<string>((resolve) => {
      const probe = net.connect({ host: '127.0.0.1', port });
      probe.once('connect', () => (probe.destroy(), resolve('connected')));
      probe.once('error', (err: NodeJS.ErrnoException) => resolve(String(err.code)));
    });
    expect(refused).toBe('ECONNREFUSED');

    socket.write(body.slice(10));
    await ended;
    expect(await socketError).toBeNull();
    const answer = received.slice(received.indexOf('\r\n\r\n') + 4); // after `100 Continue`
    const [head, payload] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head!.toLowerCase()).toContain('connection: close');
    const length = Number(/content-length: (\d+)/i.exec(head!)![1]);
    expect(Buffer.byteLength(payload!)).toBe(length);
    expect(JSON.parse(payload!).data.access_token).toEqual(expect.any(String));

    expect(await exitOf(proc!)).toBe(0);
    expect(proc!.output()).toMatch(/Stopped\./);
  }, 60_000);

  it('starts again on the folder and serves its data', async () => {
    await start();
    const project = await call('GET', `/projects/${projectId}`, { headers: await signIn() });
    expect(project.status).toBe(200);
    expect(project.body.data.name).toBe('Harbour wall');
    expect(await proc!.stop('SIGINT', 30_000)).toBe(0);
  }, 150_000);

  it('says what happened and what to do when the embedded database is damaged', async () => {
    // What two writers leave behind: write-ahead log pages that are not PostgreSQL's.
    const wal = join(dataDir, 'postgres', 'pg_wal');
    for (const name of readdirSync(wal).filter((n) => /^[0-9A-F]{24}$/.test(n))) {
      const file = join(wal, name);
      const bytes = readFileSync(file);
      for (let i = 0; i < Math.min(bytes.length, 200_000); i++) bytes[i] = (i * 7919 + 13) & 0xff;
      writeFileSync(file, bytes);
    }
    proc = startProcess('node', ['scripts/start.mjs'], { env: env() });
    const code = await exitOf(proc);
    const out = proc.output();
    expect(code).toBe(1);
    expect(out).toMatch(/did not start: MP_DATA_DIR: the embedded database in \S+postgres is damaged/);
    expect(out).toMatch(/Restore the data folder from a backup, or move \S+ aside/);
  }, 120_000);
});
