import type { Logger } from '@mp/kit';
import type { IdentityDeps } from '../src/deps.js';
import { ACCOUNT_ALERT_FACTOR, loginAttempt, recordFailure } from '../src/login-failures.js';
import { startTestIdentity, type TestIdentity } from './support.js';

describe('identity: failed sign-ins across sources (ADR 0019)', () => {
  let t: TestIdentity;
  const warnings: { fields: Record<string, unknown>; msg: string }[] = [];
  let deps: IdentityDeps;

  beforeAll(async () => {
    t = await startTestIdentity({ MP_LOGIN_MAX_FAILURES: '2' });
    const logger = { warn: (fields: Record<string, unknown>, msg: string) => warnings.push({ fields, msg }) } as unknown as Logger;
    deps = { db: t.db, clock: t.clock, logger, settings: { maxFailures: 2, failureWindowSeconds: 900, lockSeconds: 1800 } } as unknown as IdentityDeps;
  });
  afterAll(() => t?.stop());

  it('warns once when the failures of one username across all sources reach the alert level, and locks no other source', async () => {
    const threshold = ACCOUNT_ALERT_FACTOR * 2;
    for (let i = 0; i < threshold / 2; i++) {
      const attempt = loginAttempt('spread.target', `203.0.113.${i + 1}`);
      expect(await recordFailure(deps, attempt, null)).toBeNull();
      expect(await recordFailure(deps, attempt, null)).not.toBeNull();
    }
    const alarms = warnings.filter((w) => w.fields.alarm === 'login_failures_distributed');
    expect(alarms).toEqual([{ fields: expect.objectContaining({ failures: threshold, sources: threshold / 2 }), msg: expect.any(String) }]);
    // a fresh source of the same username is counted from zero: no account-wide lock
    expect(await recordFailure(deps, loginAttempt('spread.target', '192.0.2.200'), null)).toBeNull();
  });
});
