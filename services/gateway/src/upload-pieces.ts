import type { IncomingMessage } from 'node:http';
import { DomainError } from '@mp/errors';

/**
 * The pieces of an upload's body as they arrive, under the upload's own deadlines instead of the
 * whole-request time (request-deadline.ts): a client that sends nothing for `idleMs`, or has not
 * sent the whole body within `totalMs`, is refused with 400002. Only the time spent waiting for
 * the client counts towards idleMs: while the caller handles a piece (stores it), the request is
 * paused by back-pressure and its clock does not run. A refused body is left unread; the answer
 * closes the connection (lingering-close.ts drains what is in flight).
 */
export async function* uploadPieces(req: IncomingMessage, timeouts: { idleMs: number; totalMs: number }): AsyncGenerator<Buffer> {
  const iterator = (req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const deadline = Date.now() + timeouts.totalMs;
  for (;;) {
    const waitMs = Math.min(timeouts.idleMs, deadline - Date.now());
    const next = iterator.next();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, waitMs))));
    const step = await Promise.race([next, late]).finally(() => clearTimeout(timer));
    if (step === 'late') {
      // the read still pending ends with the connection; its outcome is nobody's
      next.catch(() => undefined);
      const stalled = waitMs === timeouts.idleMs;
      throw new DomainError('400002', {
        field: 'body',
        detail: stalled
          ? `The upload stopped: no byte of the file arrived for ${timeouts.idleMs / 1000} s.`
          : `The upload took longer than ${timeouts.totalMs / 1000} s.`,
        suggestion: stalled
          ? 'Send the file again over a working connection.'
          : 'Split the file into several imports (by date range), or send it over a faster link.',
      });
    }
    if (step.done) return;
    yield step.value;
  }
}
