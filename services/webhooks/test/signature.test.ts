import { createHmac } from 'node:crypto';
import { signPayload, signatureHeaders, verifySignature } from '../src/delivery/sign.js';

const secret = 'whsec_test_0123456789abcdef';
const ts = 1_700_000_000;
const body = '{"event_id":"evt_1","event_type":"data.created","data":{"project_id":"p1","name":"Ünïcødé"}}';

// Computed independently of the module under test.
function expected(key: string, t: number, raw: string): string {
  const h = createHmac('sha256', Buffer.from(key, 'utf8'));
  h.update(Buffer.from(`${t}.${raw}`, 'utf8'));
  return 'sha256=' + h.digest('hex');
}

describe('signPayload', () => {
  it('is sha256= + lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>"', () => {
    const sig = signPayload(secret, ts, body);
    expect(sig).toBe(expected(secret, ts, body));
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('matches a fixed vector', () => {
    // HMAC-SHA256(key="secret", "1700000000.{}")
    const fixed = createHmac('sha256', 'secret').update('1700000000.{}').digest('hex');
    expect(signPayload('secret', 1700000000, '{}')).toBe(`sha256=${fixed}`);
    expect(signPayload('secret', 1700000000, '{}')).not.toBe(signPayload('secret', 1700000001, '{}'));
  });
});

describe('verifySignature', () => {
  const good = () => ({ secret, signatureHeader: signPayload(secret, ts, body), timestampHeader: String(ts), rawBody: body, nowSeconds: ts + 10 });

  it('accepts a valid signature', () => {
    expect(verifySignature(good())).toBe(true);
  });

  it('accepts header arrays of one value (node IncomingHttpHeaders)', () => {
    expect(verifySignature({ ...good(), signatureHeader: [signPayload(secret, ts, body)], timestampHeader: [String(ts)] })).toBe(true);
  });

  it('uses the current clock when nowSeconds is omitted', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature({ secret, signatureHeader: signPayload(secret, now, body), timestampHeader: String(now), rawBody: body })).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(verifySignature({ ...good(), rawBody: body.replace('p1', 'p2') })).toBe(false);
    expect(verifySignature({ ...good(), rawBody: body + ' ' })).toBe(false);
  });

  it('rejects a wrong secret', () => {
    expect(verifySignature({ ...good(), secret: secret + 'x' })).toBe(false);
  });

  it('rejects a timestamp other than the signed one', () => {
    expect(verifySignature({ ...good(), timestampHeader: String(ts + 1) })).toBe(false);
  });

  it('rejects a stale or future timestamp (> 300 s), accepts exactly 300 s', () => {
    expect(verifySignature({ ...good(), nowSeconds: ts + 301 })).toBe(false);
    expect(verifySignature({ ...good(), nowSeconds: ts - 301 })).toBe(false);
    expect(verifySignature({ ...good(), nowSeconds: ts + 300 })).toBe(true);
    expect(verifySignature({ ...good(), nowSeconds: ts - 300 })).toBe(true);
    expect(verifySignature({ ...good(), nowSeconds: ts + 301, toleranceSeconds: 600 })).toBe(true);
  });

  it('rejects a bad or missing prefix and malformed signatures without throwing', () => {
    const hex = signPayload(secret, ts, body).slice('sha256='.length);
    expect(verifySignature({ ...good(), signatureHeader: hex })).toBe(false);
    expect(verifySignature({ ...good(), signatureHeader: `sha1=${hex}` })).toBe(false);
    expect(verifySignature({ ...good(), signatureHeader: `SHA256=${hex}` })).toBe(false);
    expect(verifySignature({ ...good(), signatureHeader: `sha256=${hex.toUpperCase()}` })).toBe(false);
    expect(verifySignature({ ...good(), signatureHeader: `sha256=${hex.slice(0, 10)}` })).toBe(false);
    expect(verifySignature({ ...good(), signatureHeader: `sha256=${hex}00` })).toBe(false);
    expect(verifySignature({ ...good(), signatureHeader: 'sha256=' })).toBe(false);
    expect(verifySignature({ ...good(), signatureHeader: `sha256=${'é'.repeat(32)}` })).toBe(false);
  });

  it('rejects missing or malformed headers', () => {
    expect(verifySignature({ ...good(), signatureHeader: undefined })).toBe(false);
    expect(verifySignature({ ...good(), timestampHeader: undefined })).toBe(false);
    expect(verifySignature({ ...good(), timestampHeader: '' })).toBe(false);
    expect(verifySignature({ ...good(), timestampHeader: `${ts}.0` })).toBe(false);
    expect(verifySignature({ ...good(), timestampHeader: `-${ts}` })).toBe(false);
    expect(verifySignature({ ...good(), timestampHeader: 'abc' })).toBe(false);
    expect(verifySignature({ ...good(), signatureHeader: [signPayload(secret, ts, body), signPayload(secret, ts, body)] })).toBe(false);
  });
});

describe('signatureHeaders', () => {
  it('returns the delivery headers of docs/rules.md#signatures', () => {
    const h = signatureHeaders(secret, 'evt_123', body, ts);
    expect(h).toEqual({
      'content-type': 'application/json',
      'user-agent': 'MonitoringPlatform-Webhooks/3',
      'x-service-signature': expected(secret, ts, body),
      'x-service-timestamp': '1700000000',
      'x-service-event-id': 'evt_123',
    });
    expect(
      verifySignature({ secret, signatureHeader: h['x-service-signature'], timestampHeader: h['x-service-timestamp'], rawBody: body, nowSeconds: ts }),
    ).toBe(true);
  });

  it('defaults the timestamp to now', () => {
    const before = Math.floor(Date.now() / 1000);
    const h = signatureHeaders(secret, 'evt_1', body);
    const t = Number(h['x-service-timestamp']);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(h['x-service-timestamp']).toMatch(/^\d+$/);
    expect(verifySignature({ secret, signatureHeader: h['x-service-signature'], timestampHeader: h['x-service-timestamp'], rawBody: body })).toBe(true);
  });
});
