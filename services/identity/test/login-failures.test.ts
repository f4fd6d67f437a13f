import type { Logger } from '@mp/kit';
import type { IdentityDeps } from '../src/deps.js';
import { ACCOUNT_ALERT_FACTOR, loginAttempt, recordFailure } from '../src/login-failures.js';
import { loginSource } from '../src/login-source.js';
import { startTestIdentity, type TestIdentity } from './support.js';

describe('identity: sources of failed sign-ins (ADR 0019)', () => {
  it('counts IPv4 addresses, IPv6 /64 prefixes, IPv4-mapped addresses as IPv4, and anything else as one shared source', () => {
    expect(loginSource('198.51.100.7')).toBe('198.51.100.7');
    expect(loginSource('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(loginSource('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(loginSource('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(loginSource('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(loginSource('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(loginSource('::1')).toBe('0:0:0:0::/64');
    expect(loginSource('::ffff:10.0.0.1'.toUpperCase())).toBe('10.0.0.1');
    expect(loginSource('')).toBe('');
    expect(loginSource('not an address')).toBe('');
  });
});

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
