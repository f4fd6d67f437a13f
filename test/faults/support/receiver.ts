import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { testCertificate } from '@mp/testing';

/** How the receiver treats one request: its event id and the how-manieth time that event arrives. */
export type Behaviour = (eventId: string, arrival: number) => { status?: number; delayMs?: number; hang?: boolean; reset?: boolean; drip?: boolean };

export interface CountingReceiver {
  name: string;
  url: string;
  /** Times each event_id was acknowledged with a 2xx. */
  accepted: Map<string, number>;
  /** Times each event_id arrived at all. */
  arrivals: Map<string, number>;
  /** When each event_id was first acknowledged (ms since epoch). */
  firstAcceptedAt: Map<string, number>;
  requests(): number;
  /** Most requests open at once (arrived, not yet answered or closed). */
  maxOpen(): number;
  /** Requests open now. */
  open(): number;
  /** Events acknowledged more than once: [event_id, times]. */
  duplicates(): [string, number][];
  waitForAccepted(n: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * An HTTPS receiver for the fault tests that keeps counts, not bodies (tens of thousands of
 * requests), and misbehaves as told: answers late, never answers, resets the connection, or
 * answers 200 at once and then drips its body, a byte a second, never ending it.
 */
export async function startCountingReceiver(name: string, behaviour: Behaviour = () => ({})): Promise<CountingReceiver> {
  const tls = await testCertificate();
  const accepted = new Map<string, number>();
  const arrivals = new Map<string, number>();
  const firstAcceptedAt = new Map<string, number>();
  let requests = 0;
  let open = 0;
  let maxOpen = 0;
  const sockets = new Set<Socket>();
  const server = https.createServer({ cert: tls.cert, key: tls.key, keepAliveTimeout: 10_000 }, (req, res) => {
    const eventId = String(req.headers['x-service-event-id'] ?? '');
    requests++;
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => open--);
    const arrival = (arrivals.get(eventId) ?? 0) + 1;
    arrivals.set(eventId, arrival);
    const b = behaviour(eventId, arrival);
    req.resume();
    if (b.reset) {
      // A TCP RST: only the plain socket under the TLS one can send it.
      rawByPort.get(req.socket.remotePort ?? -1)?.resetAndDestroy();
      return;
    }
    if (b.hang) return;
    if (b.drip) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => res.write('.'), 1000);
      res.on('close', () => clearInterval(drip));
      res.on('error', () => undefined);
      return;
    }
    const answer = () => {
      const status = b.status ?? 200;
      if (status >= 200 && status < 300) {
        accepted.set(eventId, (accepted.get(eventId) ?? 0) + 1);
        if (!firstAcceptedAt.has(eventId)) firstAcceptedAt.set(eventId, Date.now());
      }
      res.writeHead(status).end();
    };
    if (b.delayMs) setTimeout(answer, b.delayMs);
    else req.on('end', answer);
  });
  const rawByPort = new Map<number, Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    const port = s.remotePort ?? -1;
    rawByPort.set(port, s);
    s.on('close', () => {
      sockets.delete(s);
      if (rawByPort.get(port) === s) rawByPort.delete(port);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    name,
    url: `https://127.0.0.1:${port}/${name}`,
    accepted,
    arrivals,
    firstAcceptedAt,
    requests: () => requests,
    maxOpen: () => maxOpen,
    open: () => open,
    duplicates: () => [...accepted].filter(([, n]) => n > 1),
    async waitForAccepted(n, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (accepted.size < n) {
        if (Date.now() > deadline) throw new Error(`receiver ${name} acknowledged ${accepted.size} of ${n} events in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
