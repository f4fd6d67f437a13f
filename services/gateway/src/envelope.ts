import type { DomainError } from '@mp/errors';
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
 * The same envelope with `data` already JSON text, for answers too large to build as objects
 * first (a 1,000-record write); the bytes are those `ok` would send.
 */
export function okJson(ctx: GatewayContext, dataJson: string): void {
  const state = ctx.state;
  ctx.status = 200;
  ctx.type = 'application/json';
  // As bytes: Koa then takes Content-Length from them instead of measuring ~150 KB of text first.
  ctx.body = Buffer.from(`{"code":200,"data":${dataJson},"meta":${JSON.stringify({ request_id: state.requestId, timestamp: new Date().toISOString() })}}`);
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
