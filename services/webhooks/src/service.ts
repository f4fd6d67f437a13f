import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Database } from '@mp/db';
import type { EventTransport, Subscription } from '@mp/events';
import { startGrpcServer } from '@mp/grpc';
import { SecretBox, systemClock, type Clock, type Logger } from '@mp/kit';
import type { WebhooksDeps } from './deps.js';
import { DeliveryWorker } from './delivery-worker.js';
import { webhooksBinding } from './handlers.js';
import { ingestEvent } from './ingest-event.js';

export interface WebhooksServiceOptions {
  db: Database;
  transport: EventTransport;
  logger: Logger;
  secretsKey: string;
  host?: string;
  port: number;
  allowPrivateTargets: boolean;
  timeoutMs?: number;
  concurrency?: number;
  /** PEM of extra CAs to trust besides the system roots (NODE_EXTRA_CA_CERTS). */
  extraCa?: string[];
  clock?: Clock;
  /** Durable consumer name on the event stream. */
  consumerName?: string;
}

export function readExtraCa(path: string | undefined): string[] | undefined {
  return path ? [readFileSync(path, 'utf8')] : undefined;
}

/** Starts the webhooks gRPC service, its durable event consumer and its delivery worker. */
export async function startWebhooksService(opts: WebhooksServiceOptions) {
  let worker: DeliveryWorker | null = null;
  const deps: WebhooksDeps = {
    db: opts.db,
    logger: opts.logger,
    clock: opts.clock ?? systemClock,
    secrets: new SecretBox(opts.secretsKey),
    sender: {
      allowPrivate: opts.allowPrivateTargets,
      timeoutMs: opts.timeoutMs ?? 30_000,
      ...(opts.extraCa?.length ? { ca: [...rootCertificates, ...opts.extraCa] } : {}),
    },
    wakeWorker: () => worker?.wake(),
  };
  worker = new DeliveryWorker(deps, opts.logger, { concurrency: opts.concurrency ?? 256 });
  const server = await startGrpcServer({ host: opts.host, port: opts.port, services: [webhooksBinding(deps)], logger: opts.logger });
  const subscription: Subscription = await opts.transport.subscribe(opts.consumerName ?? 'webhooks', async (event) => {
    await ingestEvent(deps, event);
  });
  worker.start();
  return {
    port: server.port,
    deps,
    async stop() {
      await subscription.stop();
      await server.stop();
      await worker!.stop();
    },
  };
}

export type RunningWebhooksService = Awaited<ReturnType<typeof startWebhooksService>>;
