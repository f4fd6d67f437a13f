import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Takes the data folder for this process. Two platforms on one folder would both open the same
 * embedded databases and overwrite each other's pages (one's writes are lost after a restart), so
 * the second one refuses to start. A lock left by a process that no longer runs is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'platform.lock');
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
        throw new Error(
          `The data folder ${dir} is in use by another Monitoring Platform (process ${holder}${holder === process.pid ? ', this one' : ''}): stop that one, or set MP_DATA_DIR to another folder.`,
        );
      }
      unlinkSync(file);
    }
  }
  return {
    release() {
      try {
        if (Number.parseInt(readFileSync(file, 'utf8'), 10) === process.pid) unlinkSync(file);
      } catch {
        // Already gone.
      }
    },
  };
}
