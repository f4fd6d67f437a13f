import { SettingError } from './startup.js';

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

/**
 * Refuses the start of a standalone process whose settings name no infrastructure, before anything
 * is opened: a SettingError naming every missing setting, which startOrExit writes as the one
 * fatal log line (`setting` holds the names) before the process exits 1.
 */
export function requireSettings(party: string, config: Record<string, unknown>, required: RequiredSetting[]): void {
  const missing = required.filter((name) => config[name] === undefined || config[name] === '');
  if (!missing.length) return;
  const names = missing.join(', ');
  throw new SettingError(
    names,
    `${names} ${missing.length === 1 ? 'is' : 'are'} not set: a standalone ${party} process needs ` +
      `${missing.map((n) => `${WHY[n]} (${n})`).join('; ')}. The embedded adapters serve only \`npm start\`.`,
    true,
  );
}
