import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryTestDatabase } from '@mp/testing';
import { startProcess, type StartedProcess } from '../../support/process.js';

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function pgBin(): string {
  const root = '/usr/lib/postgresql';
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error('no PostgreSQL under /usr/lib/postgresql');
  return join(root, version, 'bin');
}

/** PostgreSQL refuses to run as root: as root, the cluster belongs to and runs as `postgres`. */
function pgUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

export interface PrivatePostgres {
  port: number;
  /** URL of a database on this cluster (created by createDatabase). */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** `immediate` is a crash (no checkpoint, recovery on start); `fast` a clean shutdown. */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  destroy(): void;
}

/**
 * A throw-away PostgreSQL cluster in a temp dir on a free port, so a test can stop and restart
 * it without disturbing the test files that share the machine's server.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = pgBin();
  const user = pgUser();
  const dir = mkdtempSync(join(tmpdir(), 'mp-faults-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(join(bin, cmd), args, { encoding: 'utf8', ...(user ?? {}), cwd: dir });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=200 -c fsync=off`,
      'start',
    ]);
  start();
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async createDatabase(name) {
      await queryTestDatabase(url('postgres'), `CREATE DATABASE ${name}`);
      return url(name);
    },
    stop(mode = 'fast') {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    },
    start,
    destroy() {
      if (existsSync(join(data, 'postmaster.pid'))) {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } catch {
          // already stopped
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivateNats {
  url: string;
  /** Stops the server: SIGTERM shuts JetStream down cleanly, SIGKILL is a crash. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** A nats-server with JetStream on a free port and its own store dir (restartable by the test). */
export async function startPrivateNats(): Promise<PrivateNats> {
  const dir = mkdtempSync(join(tmpdir(), 'mp-faults-nats-'));
  const port = await freePort();
  let proc: StartedProcess | null = null;
  const start = async () => {
    proc = startProcess('/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { env: { PATH: process.env.PATH } });
    await proc.waitForOutput(/Server is ready/, 30_000);
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop(signal = 'SIGTERM') {
      await proc?.stop(signal);
      proc = null;
    },
    start,
    async destroy() {
      await proc?.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
