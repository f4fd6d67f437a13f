import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CallerContext } from './context.js';
import type { ServiceKeyring } from './keyring.js';

/** The metadata entry that carries the authenticated caller context. */
export const CALLER_METADATA_KEY = 'x-mp-caller';

/** A context is good for this long after it was made: one call, with its deadline's worth of slack. */
export const CALLER_TOKEN_TTL_SECONDS = 30;
/** Clocks of pods differ a little; a context from slightly ahead is still accepted. */
const MAX_CLOCK_SKEW_SECONDS = 5;
/** Read no further than this: a real context is a few hundred bytes. */
export const MAX_CALLER_TOKEN_BYTES = 8192;

interface Payload {
  iss: string;
  aud: string;
  /** The full gRPC method path, e.g. /mp.identity.Identity/CreateTenant. */
  m: string;
  iat: number;
  exp: number;
  rid: string;
  ten: string;
  env: 'live' | 'sandbox';
  pid: string;
  pty: CallerContext['principalType'];
  prm: string[];
  idk?: string;
}

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest();

/**
 * The caller context as a token for one call: who calls (`iss`), which service (`aud`) and method
 * it is for, when it expires, the request it belongs to, and on whose behalf. MAC'd with the pair
 * key of caller and callee (ServiceKeyring).
 */
export function signCallerContext(keyring: ServiceKeyring, audience: string, method: string, ctx: CallerContext, nowMs = Date.now()): string {
  const key = keyring.keyFor(keyring.self, audience);
  if (!key) throw new Error(`No key for calls from ${keyring.self} to ${audience}: its public key is missing from the peer keys.`);
  const iat = Math.floor(nowMs / 1000);
  const payload: Payload = {
    iss: keyring.self,
    aud: audience,
    m: method,
    iat,
    exp: iat + CALLER_TOKEN_TTL_SECONDS,
    rid: ctx.requestId,
    ten: ctx.tenantId,
    env: ctx.environment,
    pid: ctx.principalId,
    pty: ctx.principalType,
    prm: ctx.permissions,
    ...(ctx.idempotencyKey ? { idk: ctx.idempotencyKey } : {}),
  };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(key, body).toString('base64url')}`;
}

export class CallerAuthError extends Error {}

const PRINCIPAL_TYPES = new Set(['user', 'api_key', 'system', 'anonymous']);
const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * Verifies a caller token for `method` of this service and returns the context it carries, with
 * `caller` set to the verified issuer. Throws CallerAuthError when it is missing, malformed, made
 * with another key, for another service or method, or expired.
 */
export function verifyCallerContext(keyring: ServiceKeyring, token: string | undefined, method: string, nowMs = Date.now()): CallerContext {
  if (!token) throw new CallerAuthError('no caller context');
  if (token.length > MAX_CALLER_TOKEN_BYTES) throw new CallerAuthError('caller context too large');
  const dot = token.indexOf('.');
  if (dot <= 0) throw new CallerAuthError('malformed caller context');
  const body = token.slice(0, dot);
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  } catch {
    throw new CallerAuthError('malformed caller context');
  }
  if (payload === null || typeof payload !== 'object' || !isString(payload.iss) || !isString(payload.aud))
    throw new CallerAuthError('malformed caller context');
  // The key is chosen by the claimed issuer; a false claim simply fails the MAC below.
  const key = payload.aud === keyring.self ? keyring.keyFor(payload.iss, keyring.self) : null;
  if (!key) throw new CallerAuthError(payload.aud === keyring.self ? `unknown caller ${payload.iss.slice(0, 40)}` : 'caller context is for another service');
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new CallerAuthError('caller context signature invalid');
  if (payload.m !== method) throw new CallerAuthError('caller context is for another method');
  const now = nowMs / 1000;
  if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number' || payload.exp < now) throw new CallerAuthError('caller context expired');
  if (payload.iat > now + MAX_CLOCK_SKEW_SECONDS || payload.exp - payload.iat > CALLER_TOKEN_TTL_SECONDS)
    throw new CallerAuthError('caller context lifetime invalid');
  if (
    !isString(payload.rid) ||
    !isString(payload.ten) ||
    !isString(payload.pid) ||
    !PRINCIPAL_TYPES.has(payload.pty) ||
    !Array.isArray(payload.prm) ||
    !payload.prm.every(isString)
  ) {
    throw new CallerAuthError('malformed caller context');
  }
  return {
    requestId: payload.rid,
    tenantId: payload.ten,
    environment: payload.env === 'sandbox' ? 'sandbox' : 'live',
    principalId: payload.pid,
    principalType: payload.pty,
    permissions: payload.prm,
    caller: payload.iss,
    ...(isString(payload.idk) ? { idempotencyKey: payload.idk } : {}),
  };
}
