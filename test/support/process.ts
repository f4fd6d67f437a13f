import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface StartedProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the output once `pattern` appears in it. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends a signal and resolves with the exit code; kills it for good after timeoutMs. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/** Starts a process of the platform; the test must stop it (also when it fails). */
export function startProcess(
  command: string,
  args: string[],
  opts: { env: Record<string, string | undefined>; cwd?: string; uid?: number; gid?: number },
): StartedProcess {
  // Its own process group, so a signal reaches every process of it, as Ctrl-C in a terminal does
  // (npm does not pass SIGINT on to the script it runs).
  const child = spawn(command, args, {
    cwd: opts.cwd ?? REPO_ROOT,
    env: opts.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    uid: opts.uid,
    gid: opts.gid,
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    waitForOutput(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`output did not match ${pattern} within ${timeoutMs} ms:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        exited.then(() => {
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited before printing ${pattern}:\n${out}`));
          }
        });
        check();
      });
    },
    async stop(signal = 'SIGINT', timeoutMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      const kill = (s: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, s);
        } catch {
          child.kill(s);
        }
      };
      kill(signal);
      const timer = setTimeout(() => kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * The environment of a platform process started as a user starts it (`npm start`, an operator
 * command) on `dataDir`: this process's environment without any MP_ or npm_ setting of the test
 * run, ports chosen by the OS on loopback, warnings only; `extra` adds or overrides settings.
 */
export function userEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  const clean: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(clean)) if (k.startsWith('MP_') || k.startsWith('npm_')) delete clean[k];
  return {
    ...clean,
    MP_DATA_DIR: dataDir,
    MP_HTTPS_PORT: '0',
    MP_SANDBOX_HTTPS_PORT: '0',
    MP_OPS_PORT: '0',
    MP_BIND_HOST: '127.0.0.1',
    MP_LOG_LEVEL: 'warn',
    ...extra,
  };
}
