// The platform of bench/series and bench/reports: the embedded launcher (bench/ingest/platform.mjs)
// on the machine's PostgreSQL, in a database of its own, with a self-signed certificate, generous
// limits and an admin user, plus a small HTTPS caller for the API.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSelfSignedCertificate } from '@mp/kit';
import { createTestDatabase } from '@mp/testing';

const here = dirname(fileURLToPath(import.meta.url));
export const ADMIN = { username: 'admin', password: 'bench password 0123' };

/** Ends a child process (SIGTERM) and waits for it; nothing when it has already exited. */
export const stopProcess = (proc) =>
  proc && proc.exitCode === null
    ? new Promise((r) => {
        proc.once('exit', r);
        proc.kill('SIGTERM');
      })
    : Promise.resolve();

/**
 * Starts the platform; `name` names its data folder, `env` adds settings. Resolves with what the
 * launcher printed (`info.port`, `info.ports`), the database, the data folder, `call(method, path,
 * body, headers)` → { status, body }, and `stop()`, which also drops the database and the folder.
 */
export async function startBenchPlatform(name, env = {}) {
  const db = await createTestDatabase();
  const tls = await createSelfSignedCertificate();
  const dataDir = mkdtempSync(join(tmpdir(), `mp-bench-${name}-`));
  const childEnv = {
    ...process.env,
    BENCH_TLS: JSON.stringify({ cert: tls.cert, key: tls.key }),
    MP_DATABASE_URL: db.url,
    MP_HTTPS_PORT: '0',
    MP_SANDBOX_HTTPS_PORT: '0',
    MP_BIND_HOST: '127.0.0.1',
    MP_ADMIN_USERNAME: ADMIN.username,
    MP_ADMIN_PASSWORD: ADMIN.password,
    MP_DATA_DIR: dataDir,
    MP_LIMIT_DATA_RECORDS_PER_MINUTE: '1000000000',
    MP_LIMIT_API_PER_MINUTE: '1000000000',
    ...env,
  };
  delete childEnv.MP_REDIS_URL;
  delete childEnv.MP_NATS_URL;
  // BENCH_PLATFORM_NODE_ARGS: flags for the platform's node only (e.g. --cpu-prof), which NODE_OPTIONS may not carry
  const nodeArgs = (process.env.BENCH_PLATFORM_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(here, '../ingest/platform.mjs')], { env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] });
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: tls.cert });
  const stop = async () => {
    agent.destroy();
    await stopProcess(child);
    await db.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  let info;
  try {
    info = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
      });
      child.once('exit', (code) => reject(new Error(`platform exited with ${code}`)));
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const call = (method, path, body, headers = {}) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        `https://127.0.0.1:${info.port}/v3${path}`,
        { method, agent, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
        },
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  return { info, db, dataDir, call, stop, pid: child.pid };
}
