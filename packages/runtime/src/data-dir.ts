import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SettingError } from '@mp/kit';

/** The lock file `npm start` and every command that opens a data folder take. */
export const DATA_DIR_LOCK_FILE = 'platform.lock';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** What holds the lock of each data folder in this process, and how many times it was taken. */
const held = new Map<string, { count: number; file: string }>();

/**
 * Makes the data folder and everything in it the owner's only (folders 0700, files 0600): the
 * embedded database creates its files 0666 less the umask, so under a umask of 000 every other
 * account could read (and write) the platform's records, password hashes and sealed secrets. The
 * folder's own 0700 keeps other accounts away from what is created in it later; `npm start`
 * (scripts/start.mjs) also sets its process's umask to 077 so those files are owner-only too. A
 * library must not change the umask of the process it runs in (a test runner, an application
 * embedding the platform): that is the entry point's choice.
 */
export function secureDataDir(dataDir: string): void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fix = (path: string, wanted: number) => {
    const st = lstatSync(path);
    if ((st.mode & 0o777) !== wanted && st.uid === process.getuid?.()) chmodSync(path, wanted);
  };
  const walk = (folder: string) => {
    fix(folder, 0o700);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) fix(path, 0o600);
      // Symbolic links and sockets keep their modes: a link's target may be outside the folder.
    }
  };
  walk(dir);
}

/**
 * Takes the data folder for this process: `npm start` for as long as it runs, and each command
 * that opens the embedded database (rollups:rebuild, secrets:reseal) for as long as it has it
 * open. Two processes on one folder would both write the same embedded database and overwrite
 * each other's pages: its tables and indexes fall out of step, and the next start fails. So the
 * second one refuses, naming the process that holds the folder. Taken again in the same process
 * (the platform opens the database once per service), it counts; the last release frees it. A
 * lock left by a process that no longer runs is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const dir = resolve(dataDir);
  const mine = held.get(dir);
  if (mine) {
    mine.count++;
    return releaser(dir);
  }
  secureDataDir(dir);
  const file = join(dir, DATA_DIR_LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new SettingError(
          'MP_DATA_DIR',
          `the data folder ${dir} is in use by process ${holder} (a running Monitoring Platform, or a command on its data): ` +
            'stop it first (Ctrl-C where it runs), then run this again; or set MP_DATA_DIR to another folder.',
        );
      }
      unlinkSync(file);
    }
  }
  held.set(dir, { count: 1, file });
  return releaser(dir);
}

function releaser(dir: string): { release(): void } {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const mine = held.get(dir);
      if (!mine || --mine.count > 0) return;
      held.delete(dir);
      try {
        if (Number.parseInt(readFileSync(mine.file, 'utf8'), 10) === process.pid) unlinkSync(mine.file);
      } catch {
        // Already gone.
      }
    },
  };
}
