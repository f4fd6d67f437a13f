import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { processMetrics } from './metrics.js';
import { listenError } from './startup.js';

/**
 * What a process tells its operators on its internal port (never the public one):
 * - `GET /livez`: 200 while the event loop answers (a liveness probe restarts it otherwise);
 * - `GET /readyz`: 200 while this process can serve its own traffic, 503 while starting or draining
 *   (a readiness probe takes it out of rotation; backend health is a metric, not readiness);
 * - `GET /metrics`: Prometheus text, when the process has metrics.
 */
export interface OpsEndpoints {
  /** True while this process can serve; absent means always ready once started. */
  ready?: () => boolean | Promise<boolean>;
  /** The Prometheus exposition of this process; absent means 404 on /metrics. */
  metrics?: () => Promise<{ contentType: string; text: string }>;
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/** The default internal port of every process (`MP_OPS_PORT`); 0 picks a free one. */
export const DEFAULT_OPS_PORT = 9464;

export async function startOpsServer(endpoints: OpsEndpoints, host: string, port: number): Promise<OpsServer> {
  const plain = (res: http.ServerResponse, status: number, text: string) =>
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`${text}\n`);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'method not allowed');
    if (path === '/livez') return plain(res, 200, 'ok');
    if (path === '/readyz') {
      Promise.resolve(endpoints.ready ? endpoints.ready() : true).then(
        (ready) => plain(res, ready ? 200 : 503, ready ? 'ready' : 'not ready'),
        () => plain(res, 503, 'not ready'),
      );
      return;
    }
    if (path === '/metrics' && endpoints.metrics) {
      endpoints.metrics().then(
        ({ contentType, text }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(text),
        (err: unknown) => plain(res, 500, String(err)),
      );
      return;
    }
    plain(res, 404, 'not found');
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The ops settings of `npm start` (the embedded platform in one process): `MP_OPS_PORT` (`off`
 * serves none, 0 a free port) and `MP_OPS_HOST`, loopback by default on a developer's machine.
 * Standalone processes (pods) read `lifecycleSettings` instead, whose host is 0.0.0.0 so that
 * probes and Prometheus reach it.
 */
export const opsSettings = {
  MP_OPS_PORT: z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)]).default(DEFAULT_OPS_PORT),
  MP_OPS_HOST: z.string().min(1).default('127.0.0.1'),
};

export type OpsSettings = { MP_OPS_PORT: 'off' | number; MP_OPS_HOST: string };

/** Starts the process's ops server with its process metrics, unless MP_OPS_PORT is `off`. */
export async function startProcessOps(settings: OpsSettings, ready?: OpsEndpoints['ready']): Promise<OpsServer | null> {
  if (settings.MP_OPS_PORT === 'off') return null;
  return startOpsServer({ metrics: processMetrics(), ...(ready ? { ready } : {}) }, settings.MP_OPS_HOST, settings.MP_OPS_PORT).catch((err: unknown) => {
    throw listenError('MP_OPS_PORT', settings.MP_OPS_HOST, settings.MP_OPS_PORT, err);
  });
}
