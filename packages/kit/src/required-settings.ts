/**
 * What each infrastructure setting gives a standalone process. The embedded adapters (PGlite, the
 * in-process event transport, per-process rate limits, a key file in MP_DATA_DIR) are right only
 * when every service runs in one process (`npm start`); a standalone process that fell back to
 * them would look healthy while its events went nowhere and its secrets were unreadable by the
 * other replicas, so it refuses to start instead (ADR 0045).
 */
const WHY = {
  MP_DATABASE_URL: 'its PostgreSQL database (postgres://…)',
  MP_NATS_URL: 'NATS JetStream, which carries its events to the other services',
  MP_SECRETS_KEY: 'the master key every replica shares to seal and read stored secrets (32 random bytes, base64)',
  MP_REDIS_URL: 'Redis, where the gateway replicas count rate limits together',
} as const;

export type RequiredSetting = keyof typeof WHY;

/** The one line a standalone process prints when settings it needs are unset; null when none is. */
export function missingSettingsLine(party: string, config: Record<string, unknown>, required: RequiredSetting[]): string | null {
  const missing = required.filter((name) => config[name] === undefined || config[name] === '');
  if (!missing.length) return null;
  const names = missing.join(', ');
  return (
    `${party}: cannot start: ${names} ${missing.length === 1 ? 'is' : 'are'} not set: a standalone ${party} process needs ` +
    `${missing.map((n) => `${WHY[n]} (${n})`).join('; ')}. The embedded adapters serve only \`npm start\`.`
  );
}

/** missingSettingsLine for a process entry: the line on stderr and exit code 1, before anything is opened. */
export function requireSettingsOrExit(party: string, config: Record<string, unknown>, required: RequiredSetting[]): void {
  const line = missingSettingsLine(party, config, required);
  if (!line) return;
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
