import { makeGenericClientConstructor, type Client } from '@grpc/grpc-js';
import { channelCredentials, targetOf, type GrpcTls } from '@mp/grpc';
import { service as healthService } from 'grpc-health-check';

type HealthClient = Client & {
  check(req: { service: string }, opts: { deadline: number }, cb: (err: Error | null, res?: { status: string | number }) => void): void;
};

/** Asks each backend's grpc.health.v1 service whether it is SERVING. */
export class Readiness {
  private readonly clients: [string, HealthClient][];

  constructor(backends: Record<string, string>, tls?: GrpcTls) {
    const Ctor = makeGenericClientConstructor(healthService, 'Health');
    this.clients = Object.entries(backends).map(([name, addr]) => {
      const { creds, options } = channelCredentials(tls, name);
      return [name, new Ctor(targetOf(addr), creds, options) as unknown as HealthClient];
    });
  }

  async check(): Promise<{ ready: boolean; services: Record<string, string> }> {
    const results = await Promise.all(
      this.clients.map(
        ([name, c]) =>
          new Promise<[string, string]>((resolve) =>
            c.check({ service: '' }, { deadline: Date.now() + 2000 }, (err, res) =>
              resolve([name, err ? 'UNAVAILABLE' : String(res?.status === 1 || res?.status === 'SERVING' ? 'SERVING' : res?.status)]),
            ),
          ),
      ),
    );
    const services = Object.fromEntries(results);
    return { ready: results.every(([, s]) => s === 'SERVING'), services };
  }

  close(): void {
    for (const [, c] of this.clients) c.close();
  }
}
