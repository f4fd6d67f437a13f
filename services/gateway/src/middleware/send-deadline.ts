import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Stream } from 'node:stream';
import type { Middleware } from 'koa';

/**
 * A streamed answer (a report download) is closed when its client stops taking it: the response
 * that has waited for its connection to drain for `stallMs` is destroyed, and with it the
 * connection. Progress is what the client accepts, not what the gateway writes: a write that does
 * not fit the connection's buffer waits for a drain, and only a drain counts. A body is written in
 * small pieces (see paced-body.ts), so a client must take a piece every `stallMs` (64 KiB every
 * 30 s by default, about 2 KiB/s); one that reads slower holds no slot and no memory for long.
 */
export function closeStalledResponses(stallMs: number): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body instanceof Stream) watchSend(ctx.res, stallMs);
  };
}

function watchSend(res: ServerResponse, stallMs: number): void {
  let lastProgress = performance.now();
  const progressed = () => {
    lastProgress = performance.now();
  };
  res.on('drain', progressed);
  const timer = setInterval(
    () => {
      if (!res.writableNeedDrain) progressed();
      else if (performance.now() - lastProgress >= stallMs) res.destroy();
    },
    Math.max(10, Math.min(1000, Math.floor(stallMs / 4))),
  );
  timer.unref();
  res.once('close', () => {
    clearInterval(timer);
    res.off('drain', progressed);
  });
}
