import { createSecureContext, rootCertificates } from 'node:tls';
import type { Database } from '@mp/db';
import type { DomainEvent, EventTransport, Subscription } from '@mp/events';
import { startGrpcServer, type ServiceAuth } from '@mp/grpc';
import { SecretBox, systemClock, type Clock, type Logger } from '@mp/kit';
import type { WebhooksDeps } from './deps.js';
import { createDeliveryAgent } from './delivery/agent.js';
import { withOpenedSecrets } from './delivery/opened-secrets.js';
import { DEFAULT_TIMEOUT_MS } from './delivery/send.js';
import { DeliveryWorker } from './delivery-worker.js';
import { DeliveryHistoryPurger } from './history-purge.js';
import { webhooksBinding } from './handlers.js';
import { EventIngester } from './ingest-event.js';
import { WebhookMetrics } from './metrics.js';
import { SuccessRateMonitor } from './success-rate-monitor.js';
import { startNotifications, type NotificationOptions } from './notifications/start.js';

export interface WebhooksServiceOptions {
  db: Database;
  transport: EventTransport;
  /** This service's keyring (and mTLS material): who may call it, and how it calls others. */
  auth: ServiceAuth;
  logger: Logger;
  secretsKey: string;
  host?: string;
  port: number;
  allowPrivateTargets: boolean;
  /** Per attempt; 30 s by default (docs/rules.md#retry-policy). */
  timeoutMs?: number;
  concurrency?: number;
  perWebhookConcurrency?: number;
  /** Attempts in flight at once for all webhooks of one tenant; default 256. */
  perTenantConcurrency?: number;
  /** PEM of extra CAs to trust besides the system roots (NODE_EXTRA_CA_CERTS). */
  extraCa?: string[];
  clock?: Clock;
  /** Durable consumer name on the event stream. */
  consumerName?: string;
  /**
   * Events taken from the durable consumer at once: handed over in parallel, they are committed
   * together (EventIngester), so ingestion is not one disk flush per event. Default 512.
   */
  ingestConcurrency?: number;
  /** How often success rates are recomputed (metric and alarm); default 30 s. */
  statsIntervalMs?: number;
  /** Finished deliveries a webhook needs before its success rate can raise the alarm; default 20. */
  alarmMinFinished?: number;
  /** Finished deliveries older than this are removed with their attempts; 30 days by default. */
  deliveryRetentionDays?: number;
  /** Alarm notifications by e-mail (ADR 0090): SMTP, link targets, the services asked, schedules. */
  notifications: NotificationOptions;
}

/** Starts the webhooks gRPC service, its durable event consumer and its delivery worker. */
const INGEST_PULLERS = 2;

export async function startWebhooksService(opts: WebhooksServiceOptions) {
  let worker: DeliveryWorker | null = null;
  const secureContext = opts.extraCa?.length ? createSecureContext({ ca: [...rootCertificates, ...opts.extraCa] }) : undefined;
  const agent = createDeliveryAgent({ allowPrivate: opts.allowPrivateTargets, ...(secureContext ? { secureContext } : {}) });
  const metrics = new WebhookMetrics();
  const deps: WebhooksDeps = {
    db: opts.db,
    logger: opts.logger,
    clock: opts.clock ?? systemClock,
    secrets: withOpenedSecrets(new SecretBox(opts.secretsKey)),
    sender: {
      allowPrivate: opts.allowPrivateTargets,
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      agent,
      ...(secureContext ? { secureContext } : {}),
    },
    metrics,
    wakeWorker: () => worker?.wake(),
  };
  worker = new DeliveryWorker(deps, opts.logger, {
    concurrency: opts.concurrency ?? 1024,
    perWebhookConcurrency: opts.perWebhookConcurrency ?? 64,
    perTenantConcurrency: opts.perTenantConcurrency ?? 256,
  });
  const monitor = new SuccessRateMonitor(deps, opts.logger, {
    intervalMs: opts.statsIntervalMs ?? 30_000,
    ...(opts.alarmMinFinished !== undefined ? { minFinished: opts.alarmMinFinished } : {}),
  });
  const purger = new DeliveryHistoryPurger(opts.db, opts.logger, { retentionMs: (opts.deliveryRetentionDays ?? 30) * 86_400_000 });
  const notifications = await startNotifications(
    {
      db: opts.db,
      logger: opts.logger,
      clock: deps.clock,
      transport: opts.transport,
      auth: opts.auth,
      secretsKey: opts.secretsKey,
      ...(opts.extraCa ? { extraCa: opts.extraCa } : {}),
    },
    opts.notifications,
  );
  const server = await startGrpcServer({
    host: opts.host,
    port: opts.port,
    services: [webhooksBinding(deps, notifications.deps)],
    auth: opts.auth,
    logger: opts.logger,
    portSetting: 'MP_WEBHOOKS_GRPC_PORT',
  });
  // Ingestion's own connection, with keyed plans like the worker's (ADR 0058): its statement
  // stores a batch and finds each event's webhooks by key.
  const ingester = new EventIngester({ ...deps, db: opts.db.reserve(1, { keyedPlans: true }) });
  // Two pullers on one durable consumer (JetStream hands each message to one of them, and one
  // keeps consuming while the other reconnects), each handing up to half of ingestConcurrency
  // events at once to the ingester, which commits what it holds together.
  const subscriptions: Subscription[] = [];
  const perPuller = Math.ceil((opts.ingestConcurrency ?? 512) / INGEST_PULLERS);
  const consumerName = opts.consumerName ?? 'webhooks';
  const messaging = (event: DomainEvent) => ({ ...opts.transport.messagingAttributes(event.event_type), 'messaging.consumer.group.name': consumerName });
  for (let i = 0; i < INGEST_PULLERS; i++) {
    subscriptions.push(
      await opts.transport.subscribe(consumerName, (event) => ingester.ingest(event, messaging(event)), { concurrency: perPuller, dataOnDemand: true }),
    );
  }
  worker.start();
  monitor.start();
  purger.start();
  opts.logger.info(
    {
      timeout_ms: deps.sender.timeoutMs,
      concurrency: opts.concurrency ?? 1024,
      per_webhook_concurrency: opts.perWebhookConcurrency ?? 64,
      per_tenant_concurrency: opts.perTenantConcurrency ?? 256,
      delivery_retention_days: opts.deliveryRetentionDays ?? 30,
      allow_private_targets: opts.allowPrivateTargets,
    },
    'webhook delivery settings',
  );
  return {
    port: server.port,
    deps,
    monitor,
    purger,
    notifications,
    /** Stops the service; gRPC calls in flight get `graceMs` to finish (a drain gives them its whole bound). */
    async stop(graceMs?: number) {
      await Promise.all(subscriptions.map((s) => s.stop()));
      await server.stop(graceMs);
      await monitor.stop();
      await purger.stop();
      await worker!.stop();
      await notifications.stop();
      await agent.destroy();
    },
  };
}

export type RunningWebhooksService = Awaited<ReturnType<typeof startWebhooksService>>;
