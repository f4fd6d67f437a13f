import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { dumpEmbeddedDatabase, loadEmbeddedDatabase } from '@mp/db';
import type { Logger } from '@mp/kit';
import { readTar, writeTar, type TarEntry } from './tar.js';

/** What a backup file says it is; a restore refuses any other. */
export const BACKUP_FORMAT = 'monitoring-platform-data-backup/1';

/** Where a running platform says how to reach its maintenance endpoint (owner-only). */
export const MAINTENANCE_FILE = 'maintenance.json';

/**
 * What a data folder holds that belongs to the running process only and is made anew at each
 * start: the lock, the operator credential and the maintenance endpoint of that run.
 */
const RUN_FILES = new Set(['platform.lock', 'operator.json', MAINTENANCE_FILE]);

export interface BackupManifest {
  format: string;
  created_at: string;
  /** The embedded databases, as folders of the data folder ("postgres", or "db/<schema>" of the earlier layout). */
  databases: string[];
  /** Every other file of the folder, relative to it (secrets.key, tls/tls.crt, tls/tls.key, …). */
  files: string[];
}

/** The folders of a data folder that hold an embedded database. */
function databaseFolders(dir: string): string[] {
  const found: string[] = [];
  if (existsSync(join(dir, 'postgres', 'PG_VERSION'))) found.push('postgres');
  if (existsSync(join(dir, 'db'))) {
    for (const name of readdirSync(join(dir, 'db')).sort()) if (existsSync(join(dir, 'db', name, 'PG_VERSION'))) found.push(`db/${name}`);
  }
  return found;
}

/** The regular files under `dir` (relative, with /), leaving out `skip` (folders or files, relative). */
function filesUnder(dir: string, skip: (rel: string) => boolean, at = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, at), { withFileTypes: true })) {
    const rel = at ? `${at}/${entry.name}` : entry.name;
    if (skip(rel)) continue;
    if (entry.isDirectory()) out.push(...filesUnder(dir, skip, rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out.sort();
}

/**
 * A backup of the data folder as a gzipped tar: a manifest, each embedded database as PGlite's tar
 * of its folder, and every other file a restore needs (the secrets key that opens the stored
 * secrets, the gateway's certificate and key, …). Each database is copied in one turn of its
 * session (see dumpEmbeddedDatabase): with the platform running in this process, the copy is of
 * one moment, whatever is being written meanwhile.
 */
export async function backupDataDir(dataDir: string): Promise<{ file: Buffer; manifest: BackupManifest }> {
  const dir = resolve(dataDir);
  const databases = databaseFolders(dir);
  if (databases.length === 0) throw new Error(`${dir} holds no embedded database (MP_DATA_DIR): nothing to back up.`);
  const entries: TarEntry[] = [];
  for (const db of databases) entries.push({ name: `database/${db}.tar`, mode: 0o600, data: await dumpEmbeddedDatabase(join(dir, db)) });
  const files = filesUnder(dir, (rel) => RUN_FILES.has(rel) || rel === 'postgres' || rel === 'db');
  for (const rel of files) entries.push({ name: `files/${rel}`, mode: statSync(join(dir, rel)).mode & 0o777, data: readFileSync(join(dir, rel)) });
  const manifest: BackupManifest = { format: BACKUP_FORMAT, created_at: new Date().toISOString(), databases, files };
  entries.unshift({ name: 'manifest.json', mode: 0o644, data: Buffer.from(JSON.stringify(manifest, null, 2) + '\n') });
  return { file: gzipSync(writeTar(entries)), manifest };
}

/** A path of a backup file's entry inside `dir`; anything reaching outside it is refused. */
function inside(dir: string, rel: string): string {
  const target = normalize(join(dir, rel));
  if (isAbsolute(rel) || relative(dir, target).split(sep).includes('..')) throw new Error(`the backup file names a path outside the data folder: ${rel}`);
  return target;
}

/**
 * Restores a backup file into the data folder `dataDir`, which the caller holds and found empty:
 * the files with their modes, then each database loaded from its copy and closed cleanly.
 */
export async function restoreDataDir(file: Buffer, dataDir: string): Promise<BackupManifest> {
  let entries: TarEntry[];
  try {
    entries = readTar(gunzipSync(file));
  } catch {
    throw new Error('the file is not a backup made by npm run data:backup (not a gzipped tar).');
  }
  const manifestEntry = entries.find((e) => e.name === 'manifest.json');
  const manifest = manifestEntry ? (JSON.parse(Buffer.from(manifestEntry.data).toString('utf8')) as BackupManifest) : null;
  if (manifest?.format !== BACKUP_FORMAT) throw new Error(`the file is not a backup made by npm run data:backup (no ${BACKUP_FORMAT} manifest).`);
  const dir = resolve(dataDir);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const missing = [...manifest.databases.map((d) => `database/${d}.tar`), ...manifest.files.map((f) => `files/${f}`)].filter((n) => !byName.has(n));
  if (missing.length) throw new Error(`the backup file is incomplete: ${missing.join(', ')} missing.`);
  try {
    for (const rel of manifest.files) {
      const target = inside(dir, rel);
      const entry = byName.get(`files/${rel}`)!;
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, entry.data, { mode: entry.mode & 0o777 });
      chmodSync(target, entry.mode & 0o777);
    }
    for (const db of manifest.databases) await loadEmbeddedDatabase(inside(dir, db), byName.get(`database/${db}.tar`)!.data);
  } catch (err) {
    // Half a restore must not look like a data folder: leave it as empty as it was.
    for (const name of readdirSync(dir)) if (!RUN_FILES.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
    throw err;
  }
  return manifest;
}

/** Names in a data folder that a restore into it would find in its way. */
export function occupiedBy(dataDir: string): string[] {
  const dir = resolve(dataDir);
  return existsSync(dir) ? readdirSync(dir).filter((name) => !RUN_FILES.has(name)) : [];
}

export interface MaintenanceEndpoint {
  url: string;
  close(): Promise<void>;
}

interface MaintenanceFile {
  pid: number;
  url: string;
  token: string;
}

/**
 * The running platform's maintenance endpoint: `POST /backup` answers a backup file of its data
 * folder. Only on loopback, and only to a caller that read the token from MP_DATA_DIR/maintenance.json
 * (owner-only), i.e. the owner of the data folder: a backup holds every secret of the platform.
 * A command that needs a consistent copy of the database while the platform runs goes through it,
 * since only this process may open the embedded database.
 */
export async function startMaintenanceEndpoint(dataDir: string, logger: Logger): Promise<MaintenanceEndpoint> {
  const dir = resolve(dataDir);
  const token = randomBytes(32).toString('base64url');
  const expected = Buffer.from(`Bearer ${token}`);
  let running: Promise<unknown> = Promise.resolve();
  const server = http.createServer((req, res) => {
    const answer = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return answer(401, `the token of ${join(dir, MAINTENANCE_FILE)} is required`);
    if (req.method !== 'POST' || req.url !== '/backup') return answer(404, 'not found');
    // One backup at a time: each holds a whole copy of the database in memory.
    const made = running.then(() => backupDataDir(dir));
    running = made.catch(() => undefined);
    made.then(
      ({ file, manifest }) => {
        logger.info({ bytes: file.length, databases: manifest.databases, files: manifest.files.length }, 'backup made');
        res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': file.length }).end(file);
      },
      (err: unknown) => {
        logger.error({ err }, 'backup failed');
        answer(500, `the backup failed: ${(err as Error).message}`);
      },
    );
  });
  server.requestTimeout = 0;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const file = join(dir, MAINTENANCE_FILE);
  const content: MaintenanceFile = { pid: process.pid, url, token };
  writeFileSync(file, JSON.stringify(content) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return {
    url,
    close: () =>
      new Promise<void>((ok) => {
        rmSync(file, { force: true });
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** The maintenance endpoint of the platform running on `dataDir`, if one says it is there. */
export function readMaintenanceFile(dataDir: string): MaintenanceFile | null {
  const file = join(resolve(dataDir), MAINTENANCE_FILE);
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as MaintenanceFile;
  } catch {
    return null;
  }
}
