import { makeGenericClientConstructor, type Client } from '@grpc/grpc-js';
import { channelCredentials, targetOf, type GrpcTls } from '@mp/grpc';
import { service as healthService } from 'grpc-health-check';

type HealthClient = Client & {
  check(req: { service: string }, opts: { deadline: number }, cb: (err: Error | null, res?: { status: string | number }) => void): void;
};

/**
 * Asks each backend's grpc.health.v1 service whether it is SERVING. A metric of the gateway's ops
 * server, never its readiness (ADR 0045): one failing backend must not take every gateway out of
 * rotation, since the others' routes still work and a request to the failing one is answered 502/503.
 */
export class BackendHealth {
  private readonly clients: [string, HealthClient][];

  constructor(backends: Record<string, string>, tls?: GrpcTls) {
    const Ctor = makeGenericClientConstructor(healthService, 'Health');
    this.clients = Object.entries(backends).map(([name, addr]) => {
      const { creds, options } = channelCredentials(tls, name);
      return [name, new Ctor(targetOf(addr), creds, options) as unknown as HealthClient];
    });
  }

  /** Each backend: true when it answered SERVING within 2 s. */
  async check(): Promise<Record<string, boolean>> {
    const results = await Promise.all(
      this.clients.map(
        ([name, c]) =>
          new Promise<[string, boolean]>((resolve) =>
            c.check({ service: '' }, { deadline: Date.now() + 2000 }, (err, res) => resolve([name, !err && (res?.status === 1 || res?.status === 'SERVING')])),
          ),
      ),
    );
    return Object.fromEntries(results);
  }

  /** `mp_gateway_backend_up{backend}` in the Prometheus text format, checked at scrape time. */
  async metrics(): Promise<{ contentType: string; text: string }> {
    const up = await this.check();
    const lines = [
      '# HELP mp_gateway_backend_up Whether the backend answered its gRPC health check as SERVING (1) or not (0) at scrape time.',
      '# TYPE mp_gateway_backend_up gauge',
      ...Object.entries(up).map(([backend, serving]) => `mp_gateway_backend_up{backend="${backend}"} ${serving ? 1 : 0}`),
    ];
    return { contentType: 'text/plain; version=0.0.4; charset=utf-8', text: `${lines.join('\n')}\n` };
  }

  close(): void {
    for (const [, c] of this.clients) c.close();
  }
}
