import { TransportError } from './errors.js';
import type { RawAnswer, SendOptions, Transport } from './transport.js';

/**
 * One HTTP exchange over `globalThis.fetch` (browsers, Deno, Node 20+). No cookies are sent: the
 * API authenticates by header only, so an origin's cookies (a console's refresh cookie) stay out
 * of API calls. `ca` cannot be honoured by fetch, so it is refused rather than ignored.
 */
export const fetchTransport: Transport = async (opts: SendOptions): Promise<RawAnswer> => {
  if (opts.ca) throw new TransportError('The fetch transport cannot add certificate authorities (ca); use nodeTransport from @mp/sdk.', null);
  let res: Response;
  try {
    res = await globalThis.fetch(opts.url, {
      method: opts.method,
      headers: opts.headers,
      credentials: 'omit',
      signal: AbortSignal.timeout(opts.timeoutMs),
      ...(opts.body !== undefined ? { body: opts.body } : {}),
    });
  } catch (err) {
    const reason = (err as Error)?.name === 'TimeoutError' ? `no answer within ${opts.timeoutMs} ms` : String((err as Error)?.message ?? err);
    throw new TransportError(`${opts.method} ${opts.url.pathname} failed: ${reason}`, null, { cause: err });
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  try {
    return { status: res.status, headers, text: await res.text() };
  } catch (err) {
    throw new TransportError(`The answer was cut off: ${(err as Error)?.message ?? err}`, res.status, { cause: err });
  }
};
