import https from 'node:https';
import { assertContract, deliveryContractProblems } from './contract.js';
import type { AddressInfo } from 'node:net';
import { createSelfSignedCertificate, type TlsMaterial } from '@mp/kit';

let shared: Promise<TlsMaterial> | null = null;
/** One self-signed certificate per test process, for receivers and the gateway alike. */
export function testCertificate(): Promise<TlsMaterial> {
  shared ??= createSelfSignedCertificate();
  return shared;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  json: any;
  receivedAt: number;
}

export type ReceiverReply = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number; hang?: boolean };

export interface HttpsReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TLS connections accepted so far (a keep-alive sender reuses one). */
  connections: number;
  /** Replies used in order, one per request; when they run out, `fallback` answers. */
  replies: ReceiverReply[];
  fallback: ReceiverReply | ((req: ReceivedRequest) => ReceiverReply);
  /**
   * Webhook deliveries (requests with X-Service-Event-ID) that break the document's `webhooks`
   * section, one line each; waitFor rejects once there is one.
   */
  contractProblems: string[];
  /** Resolves once `n` requests have arrived (or rejects after timeoutMs, or when a delivery breaks the contract). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops the receiver; rejects when a webhook delivery it got broke the contract. */
  close(): Promise<void>;
}

/** An HTTPS webhook receiver on 127.0.0.1 that records every request and answers as scripted. */
export async function startHttpsReceiver(
  opts: {
    replies?: ReceiverReply[];
    fallback?: HttpsReceiver['fallback'];
    /** Check webhook deliveries against the document (default); false for tests that send made-up events. */
    contract?: boolean;
  } = {},
): Promise<HttpsReceiver> {
  const tls = await testCertificate();
  const requests: ReceivedRequest[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const receiver = { connections: 0, contractProblems: [] as string[] } as HttpsReceiver;
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(rawBody);
      } catch {
        json = null;
      }
      const rec: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, json, receivedAt: Date.now() };
      if (opts.contract !== false && req.headers['x-service-event-id'] !== undefined) {
        for (const p of deliveryContractProblems(req.headers, json))
          receiver.contractProblems.push(`${String((json as { event_type?: unknown } | null)?.event_type)}: ${p}`);
      }
      requests.push(rec);
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
      const reply = receiver.replies.shift() ?? (typeof receiver.fallback === 'function' ? receiver.fallback(rec) : receiver.fallback);
      if (reply.hang) return;
      setTimeout(() => {
        res.writeHead(reply.status, reply.headers ?? { 'content-type': 'text/plain' });
        res.end(reply.body ?? '');
      }, reply.delayMs ?? 0);
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('secureConnection', (s) => {
    receiver.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const kept = () => {
    if (receiver.contractProblems.length)
      throw new Error(`A webhook delivery breaks docs/openapi.json (webhooks):\n  ${receiver.contractProblems.join('\n  ')}`);
    return requests.slice();
  };
  Object.assign(receiver, {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    requests,
    replies: opts.replies ?? [],
    fallback: opts.fallback ?? { status: 200 },
    waitFor(n: number, timeoutMs = 20_000) {
      if (requests.length >= n) return Promise.resolve().then(kept);
      return new Promise<ReceivedRequest[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${n} requests in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            try {
              resolve(kept());
            } catch (err) {
              reject(err as Error);
            }
          },
        });
      });
    },
    // Closing settles the account too: a test that read `requests` directly still fails on a delivery that broke the contract.
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }).then(() => void kept()),
  });
  return receiver;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
  /** The body as received (documents such as a report's PDF are not text). */
  bytes: Buffer;
}

/** A small HTTPS client for calling the gateway in tests (trusts the test certificate). */
export async function httpsRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string | Buffer; ca?: string } = {},
): Promise<ApiResponse> {
  const ca = opts.ca ?? (await testCertificate()).cert;
  const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise<ApiResponse>((resolve, reject) => {
    const req = https.request(url, { method: opts.method ?? 'GET', headers, ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let body: unknown = null;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          body = null;
        }
        const answer = { status: res.statusCode ?? 0, headers: res.headers, body, text, bytes };
        try {
          assertContract(opts.method ?? 'GET', url, answer);
        } catch (err) {
          reject(err);
          return;
        }
        resolve(answer);
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
