#!/usr/bin/env node
// `npm run data:backup -- --out FILE` and `npm run data:restore -- --in FILE`: the embedded data
// folder (MP_DATA_DIR) to one file and back. See docs/operations.md, "Backup and restore".
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backupDataDir, occupiedBy, readMaintenanceFile, restoreDataDir, type BackupManifest } from './backup.js';
import { lockDataDir } from '@mp/runtime';

const [command, ...rest] = process.argv.slice(2);
const name = `data:${command ?? ''}`;
const env = process.env;
const dataDir = resolve(env.MP_DATA_DIR || './.data');

class Refusal extends Error {}

const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`);
const contents = (m: BackupManifest) => `database ${m.databases.join(', ')}; ${m.files.length ? m.files.join(', ') : 'no other files'}`;

function refuseOnPostgres(what: string): void {
  if (env.MP_DATABASE_URL)
    throw new Refusal(
      `MP_DATABASE_URL is set: the platform's data is in that PostgreSQL database, not in the data folder; ${what} it with pg_dump/pg_restore (docs/operations.md, "Backup and restore").`,
    );
}

/** The backup file of a platform running on the folder, made by that platform (it alone may open the database). */
async function backupThroughPlatform(lockError: Error): Promise<{ file: Buffer; manifest: BackupManifest }> {
  const endpoint = readMaintenanceFile(dataDir);
  if (!endpoint) throw new Refusal(`${lockError.message} It does not serve backups (yet): try again once it has started.`);
  const res = await fetch(`${endpoint.url}/backup`, { method: 'POST', headers: { authorization: `Bearer ${endpoint.token}` } }).catch((err: unknown) => {
    throw new Refusal(`${lockError.message} Its maintenance endpoint ${endpoint.url} did not answer (${(err as Error).message}).`);
  });
  if (!res.ok) throw new Refusal(`the platform (process ${endpoint.pid}) did not make the backup: ${(await res.text()).trim()}`);
  const file = Buffer.from(await res.arrayBuffer());
  const { gunzipSync } = await import('node:zlib');
  const { readTar } = await import('./tar.js');
  const manifest = JSON.parse(Buffer.from(readTar(gunzipSync(file)).find((e) => e.name === 'manifest.json')!.data).toString('utf8')) as BackupManifest;
  return { file, manifest };
}

async function backup(out: string): Promise<string> {
  refuseOnPostgres('back up');
  if (!existsSync(dataDir)) throw new Refusal(`there is no data folder at ${dataDir} (MP_DATA_DIR): nothing to back up.`);
  let made: { file: Buffer; manifest: BackupManifest };
  let lock: { release(): void } | null = null;
  try {
    lock = lockDataDir(dataDir);
  } catch (err) {
    made = await backupThroughPlatform(err as Error);
  }
  if (lock) {
    // Nothing runs on the folder: this command holds it while it copies.
    try {
      made = await backupDataDir(dataDir);
    } finally {
      lock.release();
    }
  }
  const target = resolve(out);
  // The file holds the secrets key and the TLS key: owner-only, and whole or not at all.
  writeFileSync(`${target}.partial`, made!.file, { mode: 0o600 });
  renameSync(`${target}.partial`, target);
  return `Backed up ${dataDir} to ${target} (${size(made!.file.length)}; ${contents(made!.manifest)}). It holds the secrets key: keep it as safe as the data folder.`;
}

async function restore(input: string): Promise<string> {
  refuseOnPostgres('restore');
  const source = resolve(input);
  if (!existsSync(source)) throw new Refusal(`there is no backup file at ${source}.`);
  const existed = existsSync(dataDir);
  // Held for the whole restore: a platform started on the folder meanwhile refuses, and a folder a
  // platform (or another command) holds is refused here.
  let lock: { release(): void };
  try {
    lock = lockDataDir(dataDir);
  } catch (err) {
    throw new Refusal(`${(err as Error).message} A restore needs a folder nothing uses.`);
  }
  try {
    const occupied = occupiedBy(dataDir);
    if (occupied.length)
      throw new Refusal(
        `the data folder ${dataDir} (MP_DATA_DIR) is not empty (it holds ${occupied.slice(0, 3).join(', ')}${occupied.length > 3 ? ', …' : ''}): restore into an empty folder (set MP_DATA_DIR to a new one, or move this one away).`,
      );
    const manifest = await restoreDataDir(readFileSync(source), dataDir).catch((err: unknown) => {
      throw new Refusal(`${source}: ${(err as Error).message}`);
    });
    return `Restored ${source} (made ${manifest.created_at}; ${contents(manifest)}) into ${dataDir}. Start the platform on it: MP_DATA_DIR=${dataDir} npm start`;
  } finally {
    lock.release();
    // A folder this command made for a restore that failed goes again.
    if (!existed && occupiedBy(dataDir).length === 0) rmSync(dataDir, { recursive: true, force: true });
  }
}

try {
  if (command === 'backup') {
    const { values } = parseArgs({ args: rest, options: { out: { type: 'string' } }, strict: true });
    if (!values.out) throw new Refusal('--out FILE is required: npm run data:backup -- --out FILE');
    process.stdout.write(`${await backup(values.out)}\n`);
  } else if (command === 'restore') {
    const { values } = parseArgs({ args: rest, options: { in: { type: 'string' } }, strict: true });
    if (!values.in) throw new Refusal('--in FILE is required: npm run data:restore -- --in FILE');
    process.stdout.write(`${await restore(values.in)}\n`);
  } else {
    throw new Refusal('usage: npm run data:backup -- --out FILE | npm run data:restore -- --in FILE (MP_DATA_DIR: the data folder)');
  }
} catch (err) {
  process.stderr.write(`${name}: ${(err as Error).message}\n`);
  if (!(err instanceof Refusal) && env.MP_LOG_LEVEL === 'debug') console.error(err);
  process.exit(1);
}
