import { createHmac, timingSafeEqual } from 'node:crypto';
import { DELIVERY } from '@mp/events';

/** Prefix of the X-Service-Signature value. */
export const SIGNATURE_PREFIX = DELIVERY.signaturePrefix;
/** Replay window: the timestamp may differ from "now" by at most this. */
export const DEFAULT_TOLERANCE_SECONDS = DELIVERY.toleranceSeconds;
export const WEBHOOK_USER_AGENT = DELIVERY.userAgent;

function hmacHex(secret: string, timestampSeconds: number | string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
}

/**
 * `sha256=` + lowercase hex HMAC-SHA256 of `${timestamp}.${rawBody}` keyed with the webhook
 * secret (docs/rules.md#signatures).
 */
export function signPayload(secret: string, timestampSeconds: number, rawBody: string): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('signPayload: timestampSeconds must be a non-negative integer (Unix seconds)');
  }
  return SIGNATURE_PREFIX + hmacHex(secret, timestampSeconds, rawBody);
}

type HeaderValue = string | readonly string[] | null | undefined;

export interface VerifySignatureOptions {
  secret: string;
  /** The X-Service-Signature header as received. */
  signatureHeader: HeaderValue;
  /** The X-Service-Timestamp header as received. */
  timestampHeader: HeaderValue;
  /** The request body exactly as received (not re-serialised JSON). */
  rawBody: string;
  /** The receiver's current time in Unix seconds; defaults to the system clock. */
  nowSeconds?: number;
  /** Maximum allowed |now - timestamp|; defaults to 300 seconds. */
  toleranceSeconds?: number;
}

function single(value: HeaderValue): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  return null;
}

/**
 * Receiver-side verification exactly as docs/rules.md#signatures says: timestamp within the tolerance, signed string
 * `${timestamp}.${rawBody}`, HMAC-SHA256 hex, constant-time comparison after the `sha256=` prefix.
 * Never throws; any malformed input yields `false`.
 */
export function verifySignature(opts: VerifySignatureOptions): boolean {
  try {
    const signature = single(opts.signatureHeader);
    const timestamp = single(opts.timestampHeader);
    if (signature === null || timestamp === null) return false;
    if (typeof opts.secret !== 'string' || typeof opts.rawBody !== 'string') return false;

    // Step 2: replay protection. The timestamp is a decimal string of Unix seconds.
    if (!/^\d{1,15}$/.test(timestamp)) return false;
    const ts = Number(timestamp);
    const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
    const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!Number.isFinite(now) || !Number.isFinite(tolerance)) return false;
    if (Math.abs(now - ts) > tolerance) return false;

    // Steps 3-5: recompute and compare in constant time.
    if (!signature.startsWith(SIGNATURE_PREFIX)) return false;
    const given = Buffer.from(signature.slice(SIGNATURE_PREFIX.length), 'utf8');
    const expected = Buffer.from(hmacHex(opts.secret, timestamp, opts.rawBody), 'utf8');
    if (given.length !== expected.length) {
      // Lengths are public (always 64 hex chars); still do comparable work, never throw.
      timingSafeEqual(expected, expected);
      return false;
    }
    return timingSafeEqual(given, expected);
  } catch {
    return false;
  }
}

/** The headers of one delivery request (docs/rules.md#signatures) plus content type and user agent. */
export function signatureHeaders(secret: string, eventId: string, rawBody: string, nowSeconds: number = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    [DELIVERY.headers.signature.toLowerCase()]: signPayload(secret, nowSeconds, rawBody),
    [DELIVERY.headers.timestamp.toLowerCase()]: String(nowSeconds),
    [DELIVERY.headers.eventId.toLowerCase()]: eventId,
  };
}
