import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { httpsRequest } from '@mp/testing';
import { dataProject } from '../support/data-project.js';
import { type StartedProcess, startProcess, userEnv } from '../support/process.js';

// Backup and restore of the embedded data folder: a backup taken from the running platform while
// writes go on holds whole writes only, and a platform started on a folder restored from it serves
// the same projects, points, records, alarms, credentials and certificate.
describe('npm run data:backup / data:restore on the embedded default', () => {
  let root: string;
  let sourceDir: string;
  let restoredDir: string;
  const procs: StartedProcess[] = [];
  const password = 'correct horse battery staple';

  const env = (dataDir: string) => userEnv(dataDir, { MP_ADMIN_PASSWORD: password });
  const start = async (dataDir: string) => {
    const proc = startProcess(process.execPath, ['scripts/start.mjs'], { env: env(dataDir) });
    procs.push(proc);
    const [, url] = await proc.waitForOutput(/Live API:\s+(https:\/\/\S+)/, 90_000);
    await proc.waitForOutput(/Press Ctrl-C to stop/);
    const base = url!.replace('localhost', '127.0.0.1');
    const ca = readFileSync(join(dataDir, 'tls', 'tls.crt'), 'utf8');
    const api = (method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
      httpsRequest(`${base}${path}`, { method, ca, ...opts });
    return { proc, api };
  };
  /** Runs the command as `npm run data:*` does; resolves with its exit code and output. */
  const data = async (dataDir: string, args: string[]) => {
    const proc = startProcess(process.execPath, ['apps/platform/dist/data-cli.js', ...args], { env: env(dataDir) });
    const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
    return { code, out: proc.output() };
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'mp-backup-'));
    sourceDir = join(root, 'source');
    restoredDir = join(root, 'restored');
  });
  afterAll(async () => {
    for (const p of procs) await p.stop('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('backs up while writes go on, refuses a used or non-empty folder, and a restored folder serves the same data', async () => {
    const { proc: source, api } = await start(sourceDir);
    const login = await api('POST', '/auth/login', { body: { username: 'admin', password, grant_type: 'password' } });
    const keyRes = await api('POST', '/api-keys', {
      headers: { authorization: `Bearer ${login.body.data.access_token}` },
      body: { name: 'backup', permissions: ['system:admin', 'project:read', 'project:write', 'data:read', 'data:write'] },
    });
    const h = { 'x-api-key': keyRes.body.data.key as string };
    const { projectId, pointId } = await dataProject(api, h);
    // an alarm: a reading over the point's alarm threshold (20 mm)
    const over = await api('POST', `/projects/${projectId}/data`, {
      headers: h,
      body: { records: [{ point_id: pointId, measured_at: '2026-03-01T00:00:00Z', values: { dz: 25 } }] },
    });
    expect(over.body.data.abnormal_count).toBe(1);

    // Writes of 5 records each, one after another, until the backup is done.
    const PER_WRITE = 5;
    let written = 0;
    let writing = true;
    let n = 0;
    const writer = (async () => {
      while (writing) {
        const records = Array.from({ length: PER_WRITE }, () => {
          const at = new Date(Date.UTC(2026, 2, 2) + n++ * 60_000).toISOString();
          return { point_id: pointId, measured_at: at, values: { dz: 1 } };
        });
        const res = await api('POST', `/projects/${projectId}/data`, { headers: h, body: { records } });
        if (res.status !== 200) throw new Error(`write refused: ${res.status} ${res.text}`);
        written += PER_WRITE;
      }
    })();
    while (written < 4 * PER_WRITE) await new Promise((r) => setImmediate(r));
    const writtenBefore = written;
    const file = join(root, 'backup.tar.gz');
    const backup = await data(sourceDir, ['backup', '--out', file]);
    writing = false;
    await writer;
    expect(backup).toMatchObject({ code: 0 });
    // the writes went on while the backup was made
    expect(written).toBeGreaterThan(writtenBefore);
    expect(backup.out).toMatch(new RegExp(`^Backed up ${sourceDir} to ${file} \\(.+; database postgres; secrets.key, tls/tls.crt, tls/tls.key\\)`));
    // owner-only: it holds the secrets key
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(gunzipSync(readFileSync(file)).subarray(0, 13).toString()).toBe('manifest.json');

    // A restore never goes into a folder in use, nor one that holds anything.
    const busy = await data(sourceDir, ['restore', '--in', file]);
    expect(busy.code).toBe(1);
    expect(busy.out.trim().split('\n')).toEqual([
      expect.stringMatching(/^data:restore: MP_DATA_DIR: the data folder .* is in use by process \d+ .*A restore needs a folder nothing uses\.$/),
    ]);
    const full = join(root, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'notes.txt'), 'mine');
    const refused = await data(full, ['restore', '--in', file]);
    expect(refused.code).toBe(1);
    expect(refused.out.trim().split('\n')).toEqual([
      `data:restore: the data folder ${full} (MP_DATA_DIR) is not empty (it holds notes.txt): restore into an empty folder (set MP_DATA_DIR to a new one, or move this one away).`,
    ]);
    expect(readdirSync(full)).toEqual(['notes.txt']);

    // What the source serves once the writes stopped.
    const records = async (call: typeof api) => {
      const all: { measured_at: string }[] = [];
      for (let cursor = ''; ;) {
        const page = (await call('GET', `/points/${pointId}/data?limit=100&order=asc${cursor ? `&cursor=${cursor}` : ''}`, { headers: h })).body.data;
        all.push(...page.items);
        if (!page.has_more) return all;
        cursor = page.next_cursor;
      }
    };
    const read = async (call: typeof api) => ({
      project: (await call('GET', `/projects/${projectId}`, { headers: h })).body.data,
      points: (await call('GET', `/projects/${projectId}/points`, { headers: h })).body.data.items,
      alarms: (await call('GET', `/projects/${projectId}/alarms`, { headers: h })).body.data.items,
      records: await records(call),
    });
    const before = await read(api);
    expect(before.alarms.length).toBeGreaterThan(0);
    expect(before.records).toHaveLength(1 + written);
    expect(await source.stop('SIGINT')).toBe(0);
    // With nothing running on the folder, the command holds it and copies it itself.
    const offline = await data(sourceDir, ['backup', '--out', join(root, 'offline.tar.gz')]);
    expect(offline).toMatchObject({ code: 0 });
    expect(offline.out).toContain('database postgres; secrets.key, tls/tls.crt, tls/tls.key');
    expect(existsSync(join(sourceDir, 'platform.lock'))).toBe(false);

    const restore = await data(restoredDir, ['restore', '--in', file]);
    expect(restore).toMatchObject({ code: 0 });
    expect(restore.out).toContain(`into ${restoredDir}. Start the platform on it: MP_DATA_DIR=${restoredDir} npm start`);
    expect(readFileSync(join(restoredDir, 'secrets.key'), 'utf8')).toBe(readFileSync(join(sourceDir, 'secrets.key'), 'utf8'));
    expect(statSync(join(restoredDir, 'secrets.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(restoredDir, 'tls', 'tls.key')).mode & 0o777).toBe(0o600);

    // The restored platform: same certificate (the client trusts it as before), same administrator
    // password and API key, same project, points and alarms; the records of every write answered
    // before the backup started, and of the writes during it only whole ones.
    const { api: restored } = await start(restoredDir);
    expect(readFileSync(join(restoredDir, 'tls', 'tls.crt'), 'utf8')).toBe(readFileSync(join(sourceDir, 'tls', 'tls.crt'), 'utf8'));
    expect((await restored('POST', '/auth/login', { body: { username: 'admin', password, grant_type: 'password' } })).status).toBe(200);
    const after = await read(restored);
    expect(after.project).toEqual(before.project);
    // A point's live state (its last reading, and the status and staleness that follow from it)
    // is what the restored records say: the writes after the backup are not in it.
    const settled = (points: Record<string, unknown>[]) => points.map(({ last_measured_at: _l, status: _s, stale: _t, ...rest }) => rest);
    expect(settled(after.points)).toEqual(settled(before.points));
    const restoredPoint = after.points.find((x: { id: string }) => x.id === pointId);
    expect(Date.parse(restoredPoint.last_measured_at)).toBe(Date.parse(after.records.at(-1)!.measured_at));
    expect(after.alarms).toEqual(before.alarms);
    expect(after.records.length).toBeGreaterThanOrEqual(1 + writtenBefore);
    expect((after.records.length - 1) % PER_WRITE).toBe(0);
    expect(after.records).toEqual(before.records.slice(0, after.records.length));
    expect(existsSync(join(restoredDir, 'maintenance.json'))).toBe(true);
  }, 240_000);
});
