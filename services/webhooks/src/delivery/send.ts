import https from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import net from 'node:net';
import type tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { guardedLookup, hostOf, isForbiddenAddress, type AddressPolicy, type ResolveHost } from './target-guard.js';

export interface SendOptions {
  url: string;
  /** Raw JSON body, sent exactly as signed. */
  body: string;
  /** From signatureHeaders. */
  headers: Record<string, string>;
  /** Whole attempt including redirects; call sites use 30000 (spec §6.5). */
  timeoutMs: number;
  /** Redirects followed; default 3 (spec §8). */
  maxRedirects?: number;
  allowPrivate: boolean;
  /** Trusted CAs; when given, used INSTEAD of the default roots. */
  ca?: string[];
  /**
   * TLS context holding the trusted CAs, built once per service: passing `ca` on every request
   * would build a context per connection and make the agent key a 200 KB string per request.
   */
  secureContext?: tls.SecureContext;
  /**
   * Keep-alive agent shared by the attempts of one service (see agent.ts); without it every hop
   * opens a new TLS connection. A reused socket was checked when it connected.
   */
  agent?: https.Agent;
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
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 3;
/** At most this much of a response body is read (and discarded). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** Headers the transport owns; callers' values for them are ignored. */
const TRANSPORT_HEADERS = new Set(['content-length', 'host', 'transfer-encoding', 'connection']);

type HopResult =
  | { kind: 'response'; status: number; location: string | undefined }
  | { kind: 'timeout' }
  | { kind: 'error'; err: unknown; fatal: boolean; staleSocket?: boolean };

/** Errors a kept-alive socket shows when the receiver closed it while it sat idle in the pool. */
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

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

/** One request/response exchange, bounded by `remainingMs`. Never rejects. */
function requestOnce(url: URL, opts: SendOptions, remainingMs: number): Promise<HopResult> {
  return new Promise<HopResult>((resolve) => {
    let settled = false;
    let req: ClientRequest | undefined;
    let res: IncomingMessage | undefined;
    let response: HopResult | undefined;

    // keepSocket: the response was read to its end, so a keep-alive socket can serve the next
    // attempt. Any other ending (time-out, oversized body, error) frees the socket at once.
    const finish = (r: HopResult, keepSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!keepSocket) {
        res?.destroy();
        req?.destroy();
      }
      resolve(r);
    };
    const timer = setTimeout(() => finish(response ?? { kind: 'timeout' }), Math.max(0, remainingMs));

    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers)) if (!TRANSPORT_HEADERS.has(k.toLowerCase())) headers[k] = v;
    headers['content-length'] = String(Buffer.byteLength(opts.body, 'utf8'));

    try {
      req = https.request(
        url,
        {
          method: 'POST',
          headers,
          agent: opts.agent ?? false,
          lookup: guardedLookup(opts.allowPrivate, opts.resolve, opts.isForbidden),
          ...(opts.secureContext ? { secureContext: opts.secureContext } : opts.ca ? { ca: opts.ca } : {}),
        },
        (incoming) => {
          res = incoming;
          const location = incoming.headers.location;
          response = { kind: 'response', status: incoming.statusCode ?? 0, location: typeof location === 'string' && location !== '' ? location : undefined };
          const done = () => finish(response!);
          let bytes = 0;
          incoming.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes >= MAX_RESPONSE_BYTES) done();
          });
          incoming.on('end', () => finish(response!, true));
          incoming.on('aborted', done);
          incoming.on('error', done);
          incoming.on('close', done);
        },
      );
    } catch (err) {
      // Synchronous failures (invalid header values and the like) will not improve on retry.
      finish({ kind: 'error', err, fatal: true });
      return;
    }
    const sent = req;
    sent.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      finish(response ?? { kind: 'error', err, fatal: false, staleSocket: sent.reusedSocket && code !== undefined && STALE_SOCKET_CODES.has(code) });
    });
    sent.end(opts.body);
  });
}

/**
 * Sends one delivery attempt (spec §3 "Webhook delivery attempts", §6.5): POST over HTTPS,
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

  const result = (outcome: AttemptOutcome, httpStatus: number | null, error: string | null): AttemptResult => ({
    outcome,
    httpStatus,
    durationMs: Math.max(0, Math.round(performance.now() - started)),
    error,
    redirects,
    finalUrl: current,
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
      if (remaining <= 0) return result('retry', null, `timeout after ${timeoutMs} ms`);
      let hop = await requestOnce(url, opts, remaining);
      if (hop.kind === 'error' && hop.staleSocket) {
        // The pooled socket had been closed by the receiver; nothing reached it. Send again on a
        // fresh connection (the agent drops the dead one) instead of spending a retry on it.
        hop = await requestOnce(url, opts, deadline - performance.now());
      }

      if (hop.kind === 'timeout') return result('retry', null, `timeout after ${timeoutMs} ms`);
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
