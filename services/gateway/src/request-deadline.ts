import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The whole-request deadline Node's `requestTimeout` would give every request, kept by the
 * gateway per request instead, so that one route can leave it (ADR 0120, amendment): a logger
 * file of 200 MB over a slow link takes longer than any other body should. Node's own
 * requestTimeout is off on the gateway's servers; its headersTimeout still runs.
 *
 * The deadline starts when the headers are in (Node's 'request') and is met once the request's
 * message is complete (its body read to the end, or none); a request still arriving when it passes
 * is ended as Node would end it, through the server's 'clientError' (the error envelope when no
 * answer has started, else the connection closes).
 */
const deadlines = new WeakMap<IncomingMessage, NodeJS.Timeout>();

/** Error code the 'clientError' handler recognises (client-error.ts). */
export const REQUEST_DEADLINE = 'MP_REQUEST_DEADLINE';

export function armRequestDeadline(req: IncomingMessage, res: ServerResponse, ms: number, expired: (err: Error & { code: string }) => void): void {
  const timer = setTimeout(() => {
    deadlines.delete(req);
    if (req.complete || req.socket.destroyed) return;
    expired(Object.assign(new Error(`request not complete within ${ms} ms`), { code: REQUEST_DEADLINE, ms }));
  }, ms);
  timer.unref();
  deadlines.set(req, timer);
  // An answered request's unread body is the lingering close's (lingering-close.ts), not this timer's.
  res.once('close', () => exemptFromRequestDeadline(req));
}

/** The route reads this request's body under deadlines of its own (an upload): the whole-request one no longer applies. */
export function exemptFromRequestDeadline(req: IncomingMessage): void {
  clearTimeout(deadlines.get(req));
  deadlines.delete(req);
}
