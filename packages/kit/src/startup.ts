import { createLogger } from './logger.js';

/**
 * A failure at start-up that an operator fixes by changing a setting: its message names the
 * setting (`MP_DATABASE_URL: …`), and `setting` carries it for the log line.
 */
export class SettingError extends Error {
  constructor(
    readonly setting: string,
    message: string,
    /** The whole message when it already names the setting (several missing settings, for one). */
    whole = false,
  ) {
    super(whole ? message : `${setting}: ${message}`);
    this.name = 'SettingError';
  }
}

/** Port-taken and address errors of a listen/bind, said in terms of the setting that chose the port. */
export function listenError(setting: string, host: string, port: number | string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const detail = err instanceof Error ? err.message : String(err);
  if (code === 'EADDRINUSE' || /address already in use/i.test(detail))
    return new SettingError(setting, `port ${port} on ${host} is taken; set ${setting} to a free port.`);
  return new SettingError(setting, `cannot listen on ${host}:${port} (${detail}).`);
}

/**
 * Runs a standalone process's start-up. A failure is written as one JSON log line at fatal, naming
 * the setting to change when the error knows it (stack only at MP_LOG_LEVEL=debug), and the
 * process exits with status 1 instead of an unhandled rejection's multi-line dump.
 */
export async function startOrExit<T>(service: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const logger = createLogger(service);
    const e = err instanceof Error ? err : new Error(String(err));
    // SettingError, or another package's error of the same shape (@mp/telemetry's)
    const setting = (e as Error & { setting?: unknown }).setting;
    logger.fatal(
      {
        ...(typeof setting === 'string' ? { setting } : {}),
        ...(process.env.MP_LOG_LEVEL === 'debug' ? { stack: e.stack } : {}),
      },
      `cannot start: ${e.message}`,
    );
    logger.flush();
    process.exit(1);
  }
}
