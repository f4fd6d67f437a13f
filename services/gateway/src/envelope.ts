import type { DomainError } from '@mp/errors';
import { TextBytes } from '@mp/kit';
import type { GatewayContext } from './state.js';

export interface EnvelopeOptions {
  docsUrl: string;
}

/** Success envelope: `{ code: 200, data, meta }` (docs/rules.md#success-envelope). */
export function ok(ctx: GatewayContext, data: unknown): void {
  const state = ctx.state;
  ctx.status = 200;
  ctx.body = { code: 200, data, meta: { request_id: state.requestId, timestamp: new Date().toISOString() } };
}

/**
 * The same envelope with `data` written as JSON bytes by `writeData`, for answers too large to
 * build as objects first (a 1,000-record write); the bytes are those `ok` would send. Written
 * straight into one buffer (TextBytes, docs/adr/0126): Koa takes Content-Length from it, and no
 * ~150 KB text is built to be encoded afterwards. `capacity`: the expected size in bytes.
 */
export function okBytes(ctx: GatewayContext, capacity: number, writeData: (w: TextBytes) => void): void {
  const state = ctx.state;
  const w = new TextBytes(capacity);
  w.text('{"code":200,"data":');
  writeData(w);
  w.text(`,"meta":${JSON.stringify({ request_id: state.requestId, timestamp: new Date().toISOString() })}}`);
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = w.finish();
}

/** Error envelope (docs/rules.md#error-envelope); HTTP status = the code's first three digits. */
export function errorBody(err: DomainError, requestId: string, docsUrl: string) {
  return {
    code: Number(err.code),
    message: err.entry.message,
    data: { field: err.field, detail: err.detail, suggestion: err.suggestion },
    meta: { request_id: requestId, timestamp: new Date().toISOString(), documentation_url: `${docsUrl}/errors/${err.code}` },
  };
}
