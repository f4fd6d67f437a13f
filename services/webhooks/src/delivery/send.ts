import net from 'node:net';
import type tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Client, type Dispatcher } from 'undici';
import { guardedLookup, hostOf, isForbiddenAddress, type AddressPolicy, type ResolveHost } from './target-guard.js';

export interface SendOptions {
  url: string;
  /** Raw JSON body, sent exactly as signed. */
  body: string;
  /** From signatureHeaders. */
  headers: Record<string, string>;
  /** Whole attempt including redirects; call sites use 30000 (docs/rules.md#retry-policy). */
  timeoutMs: number;
  /** Redirects followed; default 3 (docs/rules.md#delivery-outcomes). */
  maxRedirects?: number;
  allowPrivate: boolean;
  /** Trusted CAs; when given, used INSTEAD of the default roots. */
  ca?: string[];
  /** TLS context holding the trusted CAs, built once per service (used instead of `ca`). */
  secureContext?: tls.SecureContext;
  /**
   * Keep-alive connection pool shared by the attempts of one service (see agent.ts), which holds
   * its own address guard and CAs; without it every hop opens a new TLS connection, guarded with
   * this attempt's settings. A pooled connection was checked when it connected.
   */
  agent?: Dispatcher;
  /** Replaces the system resolver (tests). */
  resolve?: ResolveHost;
  /** Replaces the address policy (tests; see AddressPolicy). */
  isForbidden?: AddressPolicy;
}

export type AttemptOutcome = 'delivered' | 'failed' | 'retry';

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** Status of the last response received on the final hop; null when none arrived. */
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  /** Redirects followed. */
  redirects: number;
  /** The last URL requested (or refused, for a refused redirect target). */
  finalUrl: string;
  /** The attempt ran out of time: no answer, or an answer whose body did not end in time. */
  timedOut?: true;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 3;
/** At most this much of a response body is read (and discarded). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** Headers the transport owns; callers' values for them are ignored. */
const TRANSPORT_HEADERS = new Set(['content-length', 'host', 'transfer-encoding', 'connection']);

type HopResult =
  | { kind: 'response'; status: number; location: string | undefined }
  /** `status`: the answer's status when its headers came but its body did not end in time. */
  | { kind: 'timeout'; status?: number }
  | { kind: 'error'; err: unknown; fatal: boolean; closedBeforeAnswer?: boolean };

/**
 * Errors of a connection that closed before any answer: most often a kept-alive connection the
 * receiver closed while it sat in the pool, just as the request went out on it.
 */
const CLOSED_BEFORE_ANSWER = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);
/** Errors of the request itself (a header value no server may receive): trying again cannot help. */
const FATAL_REQUEST_ERRORS = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN']);

/**
 * What the sender's connections are opened with: the address guard (every address a name
 * resolves to is checked when a connection is made, so a name that rebinds to a private address
 * gets no connection) and the trusted CAs.
 */
export function connectOptions(o: Pick<SendOptions, 'allowPrivate' | 'resolve' | 'isForbidden' | 'secureContext' | 'ca'>) {
  return {
    lookup: guardedLookup(o.allowPrivate, o.resolve, o.isForbidden),
    ...(o.secureContext ? { secureContext: o.secureContext } : o.ca ? { ca: o.ca } : {}),
  };
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  let message = err.message;
  if (!message && err instanceof AggregateError) {
    message = err.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ');
  }
  if (!code) return message || err.name;
  if (!message) return code;
  return message.includes(code) ? message : `${code}: ${message}`;
}

/** At most this much of an error is kept: it may quote a receiver's Location header (up to 16 KB). */
export const MAX_ERROR_CHARS = 500;

/** The error as stored with the attempt and shown by the delivery API, cut to MAX_ERROR_CHARS. */
function boundedError(error: string | null): string | null {
  return error !== null && error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS - 1)}…` : error;
}

/** One request/response exchange, bounded by `remainingMs`. Never rejects. */
async function requestOnce(url: URL, opts: SendOptions, remainingMs: number): Promise<HopResult> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers)) if (!TRANSPORT_HEADERS.has(k.toLowerCase())) headers[k] = v;
  // No pool given: a connection for this hop alone, closed after it.
  const oneOff = opts.agent ? null : new Client(url.origin, { connect: connectOptions(opts), pipelining: 1 });
  const dispatcher: Dispatcher = opts.agent ?? oneOff!;
  const abort = new AbortController();
  let response: HopResult | undefined;
  const exchange = (async (): Promise<HopResult> => {
    try {
      const res = await dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body: opts.body,
        signal: abort.signal,
      });
      const location = res.headers.location;
      response = { kind: 'response', status: res.statusCode, location: typeof location === 'string' && location !== '' ? location : undefined };
      // Read to the end, so the connection can serve the next attempt; past the cap it is dropped.
      let bytes = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes >= MAX_RESPONSE_BYTES) {
          res.body.destroy();
          break;
        }
      }
      return response;
    } catch (err) {
      // An answer that arrived stands, whatever became of its body (reset, oversize).
      if (response) return response;
      const code = (err as NodeJS.ErrnoException | null)?.code;
      return {
        kind: 'error',
        err,
        fatal: code !== undefined && FATAL_REQUEST_ERRORS.has(code),
        closedBeforeAnswer: code !== undefined && CLOSED_BEFORE_ANSWER.has(code),
      };
    }
  })();
  // The time limit does not wait for the exchange to notice the abort: a connection still in its
  // TLS handshake gives up only at undici's own connect time-out. It covers the whole exchange:
  // a receiver that sends its headers and then drips its body is cut at the limit, and the
  // attempt counts as timed out, not as delivered.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HopResult>((resolve) => {
    timer = setTimeout(
      () => {
        abort.abort();
        resolve(response?.kind === 'response' ? { kind: 'timeout', status: response.status } : { kind: 'timeout' });
      },
      Math.max(0, remainingMs),
    );
  });
  try {
    return await Promise.race([exchange, timeout]);
  } finally {
    clearTimeout(timer);
    if (oneOff) void oneOff.destroy().catch(() => undefined);
  }
}

/**
 * Sends one delivery attempt (docs/rules.md#delivery-outcomes, docs/rules.md#retry-policy): POST over HTTPS,
 * following up to `maxRedirects` redirects, all within `timeoutMs`. 2xx → delivered; 4xx, refused
 * redirects and SSRF refusals → failed; 5xx, timeouts and network/TLS/DNS errors → retry.
 * Never throws.
 */
export async function sendWebhook(opts: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const timeoutMs = Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_TIMEOUT_MS;
  const deadline = started + timeoutMs;
  const maxRedirects =
    opts.maxRedirects !== undefined && Number.isInteger(opts.maxRedirects) && opts.maxRedirects >= 0 ? opts.maxRedirects : DEFAULT_MAX_REDIRECTS;
  let current = opts.url;
  let redirects = 0;

  const result = (outcome: AttemptOutcome, httpStatus: number | null, error: string | null, timedOut = false): AttemptResult => ({
    outcome,
    httpStatus,
    durationMs: Math.max(0, Math.round(performance.now() - started)),
    error: boundedError(error),
    redirects,
    finalUrl: current,
    ...(timedOut ? { timedOut: true as const } : {}),
  });

  try {
    let lastRedirectStatus: number | null = null;
    for (;;) {
      const what = redirects === 0 ? 'webhook url' : 'redirect target';
      let url: URL;
      try {
        url = new URL(current);
      } catch {
        return result('failed', lastRedirectStatus, `${what} is not a valid URL: ${current}`);
      }
      if (url.protocol !== 'https:') return result('failed', lastRedirectStatus, `${what} is not https: ${url.protocol}//${url.host}`);
      if (url.username !== '' || url.password !== '') return result('failed', lastRedirectStatus, `${what} contains credentials`);
      const host = hostOf(url);
      if (!opts.allowPrivate && net.isIP(host) && (opts.isForbidden ?? isForbiddenAddress)(host)) {
        return result('failed', lastRedirectStatus, `SSRF protection: ${what} ${host} is a private or reserved address`);
      }

      const remaining = deadline - performance.now();
      if (remaining <= 0) return result('retry', null, `timeout after ${timeoutMs} ms`, true);
      let hop = await requestOnce(url, opts, remaining);
      if (hop.kind === 'error' && hop.closedBeforeAnswer && deadline - performance.now() > 0) {
        // The connection closed before any answer, most often a pooled one the receiver had
        // closed: send once more on a fresh connection (the pool drops the dead one) instead of
        // spending a retry of the schedule on it. At worst the receiver gets the delivery twice,
        // which event_id lets it recognise (docs/rules.md#event-envelope).
        hop = await requestOnce(url, opts, deadline - performance.now());
      }

      if (hop.kind === 'timeout') {
        if (hop.status === undefined) return result('retry', null, `timeout after ${timeoutMs} ms`, true);
        return result('retry', hop.status, `timeout after ${timeoutMs} ms: the receiver answered ${hop.status} but its body did not end in time`, true);
      }
      if (hop.kind === 'error') {
        const code = (hop.err as NodeJS.ErrnoException | null)?.code;
        if (code === 'ESSRF') return result('failed', null, `SSRF protection: ${errorText(hop.err)}`);
        return result(hop.fatal ? 'failed' : 'retry', null, errorText(hop.err));
      }

      const status = hop.status;
      if (status >= 200 && status < 300) return result('delivered', status, null);
      if (status >= 300 && status < 400) {
        if (!hop.location) return result('failed', status, `receiver answered ${status} without a Location header`);
        if (redirects >= maxRedirects) return result('failed', status, 'too many redirects');
        let next: URL;
        try {
          next = new URL(hop.location, url);
        } catch {
          return result('failed', status, `receiver answered ${status} with an invalid Location header`);
        }
        redirects += 1;
        lastRedirectStatus = status;
        current = next.href;
        continue;
      }
      if (status >= 400 && status < 500) return result('failed', status, `receiver answered ${status}`);
      if (status >= 500 && status < 600) return result('retry', status, `receiver answered ${status}`);
      return result('failed', status, `receiver answered unexpected status ${status}`);
    }
  } catch (err) {
    return result('retry', null, `unexpected error: ${errorText(err)}`);
  }
}
