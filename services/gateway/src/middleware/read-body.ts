import type { Context } from 'koa';
import { DomainError } from '@mp/errors';
import type { BodyBudget } from '../body-budget.js';

/** How much of a body a route takes, and how long it waits for it (ADR 0017). */
export interface BodyLimits {
  /** Largest body accepted; above it 400005. */
  limitBytes: number;
  /** Shared by every request of the process; past it 503002. */
  budget: BodyBudget;
  /** From the first read to the last byte; after it 400002. */
  timeoutMs: number;
  /** `data.suggestion` of a 400005: what to send instead. */
  tooLargeSuggestion: string;
}

/** `5 MB`, `64 KB` or `1000 bytes`, as the limits are written in the documentation. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KB`;
  return `${n} bytes`;
}

/** True when the request carries a body: a Content-Length above 0, or a chunked one. */
export function announcesBody(ctx: Context): boolean {
  const length = ctx.request.length;
  return (length !== undefined && length > 0) || ctx.get('transfer-encoding') !== '';
}

function tooLarge(limits: BodyLimits, detail: string): DomainError {
  return new DomainError('400005', {
    detail: `${detail}; the limit is ${limits.limitBytes} bytes (${formatBytes(limits.limitBytes)}).`,
    suggestion: limits.tooLargeSuggestion,
  });
}

/** 400005 for a Content-Length over the limit, before anything is read. */
export function refuseOversized(ctx: Context, limits: BodyLimits): void {
  const length = ctx.request.length;
  if (length !== undefined && length > limits.limitBytes) throw tooLarge(limits, `The request body is ${length} bytes`);
}

function overloaded(budget: BodyBudget): DomainError {
  return new DomainError('503002', {
    detail: `The gateway already holds ${formatBytes(budget.capacityBytes)} of request bodies in flight, its limit; this body was not read.`,
    suggestion: 'Retry after Retry-After seconds with exponential back-off (1 s, 2 s, 4 s, at most 3 attempts).',
    headers: { 'Retry-After': '1' },
  });
}

/** Reserves body bytes for one request and gives all of them back when its response is done. */
function reservationOf(ctx: Context, budget: BodyBudget): (bytes: number) => boolean {
  let held = 0;
  ctx.res.once('close', () => budget.release(held));
  return (bytes) => {
    if (!budget.tryReserve(bytes)) return false;
    held += bytes;
    return true;
  };
}

/**
 * Reads the request body into memory under `limits`. Routes call it only after authentication,
 * the tenant limits and the permission check, so an anonymous or refused client never makes the
 * gateway hold its bytes. A body with a Content-Length is refused before its first byte when it
 * is over the limit (400005) or does not fit the process's budget (503002); a chunked one is
 * counted as it arrives. A body that stops arriving (client gone, or slower than `timeoutMs`) is
 * 400002. After a refusal the rest of the body is left flowing to nowhere, so that the lingering
 * close can drain it without holding it (lingering-close.ts).
 */
export function readBody(ctx: Context, limits: BodyLimits): Promise<Buffer> {
  refuseOversized(ctx, limits);
  const length = ctx.request.length;
  const reserve = reservationOf(ctx, limits.budget);
  if (length !== undefined && !reserve(length)) throw overloaded(limits.budget);
  const req = ctx.req;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (err?: DomainError) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onIncomplete).off('close', onClose);
      if (!err) return resolve(Buffer.concat(chunks, received));
      chunks.length = 0;
      req.resume();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.limitBytes) return finish(tooLarge(limits, `The request body exceeds ${received - chunk.length} bytes`));
      if (length === undefined && !reserve(chunk.length)) return finish(overloaded(limits.budget));
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onIncomplete = () =>
      finish(
        new DomainError('400002', {
          detail: 'The request body could not be read completely.',
          suggestion: 'Send the whole body with a correct Content-Length.',
        }),
      );
    const onClose = () => {
      if (!req.complete) onIncomplete();
    };
    const timer = setTimeout(
      () =>
        finish(
          new DomainError('400002', {
            detail: `The request body did not arrive within ${limits.timeoutMs / 1000} s of the gateway starting to read it.`,
            suggestion: 'Send the whole body at once, right after the headers.',
          }),
        ),
      limits.timeoutMs,
    );
    req.on('data', onData).once('end', onEnd).once('error', onIncomplete).once('close', onClose);
    if (req.destroyed) onIncomplete();
  });
}
