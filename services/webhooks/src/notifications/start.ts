import type { Database } from '@mp/db';
import type { EventTransport, Subscription } from '@mp/events';
import type { ServiceAuth } from '@mp/grpc';
import type { Clock, Logger } from '@mp/kit';
import { AckLinkSigner } from './ack-link.js';
import { AlarmEventGate, handleAlarmEvent } from './alarm-events.js';
import { createMailer } from '@mp/mail';
import type { NotificationDeps, PublicUrls } from './settings.js';
import { lazySources, type SourceAddresses } from './sources.js';
import { NotificationWorker } from './worker.js';

export interface NotificationOptions {
  /** MP_SMTP_URL; unset: rules are kept, mails logged as skipped. */
  smtpUrl?: string;
  /** MP_MAIL_FROM. */
  mailFrom?: string;
  /** The gateway's public base URLs (…/v3), or how to learn them once the gateway has started. */
  publicUrls: PublicUrls | (() => PublicUrls);
  /** projects and monitoring-data, or how to learn their addresses once they have started. */
  sources: SourceAddresses | (() => SourceAddresses);
  pollMs?: number;
  minIntervalSeconds?: number;
  ackLinkHours?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  /** Durable consumer name of the alarm events; default `notifications`. */
  consumerName?: string;
}

/**
 * Notifications (ADR 0090) inside the webhooks service: a durable consumer of the alarm events
 * only (alarm.*), the worker that sends mails and schedules reminders and escalations, and the
 * dependencies of the rule and link use cases.
 */
export async function startNotifications(
  base: { db: Database; logger: Logger; clock: Clock; transport: EventTransport; auth: ServiceAuth; secretsKey: string; extraCa?: string[] },
  opts: NotificationOptions,
) {
  const mailer = createMailer({
    url: opts.smtpUrl,
    from: opts.mailFrom ?? 'Monitoring Platform <alarms@localhost>',
    ...(base.extraCa ? { extraCa: base.extraCa } : {}),
  });
  const sources = lazySources(typeof opts.sources === 'function' ? opts.sources : () => opts.sources as SourceAddresses, base.auth);
  let worker: NotificationWorker | null = null;
  const deps: NotificationDeps = {
    db: base.db,
    logger: base.logger,
    clock: base.clock,
    mailer,
    links: new AckLinkSigner(base.secretsKey),
    publicUrls: typeof opts.publicUrls === 'function' ? opts.publicUrls : () => opts.publicUrls as PublicUrls,
    sources: sources.get,
    settings: {
      minIntervalSeconds: opts.minIntervalSeconds ?? 60,
      ackLinkMs: (opts.ackLinkHours ?? 72) * 3_600_000,
      maxAttempts: opts.maxAttempts ?? 6,
      retryBaseMs: opts.retryBaseMs ?? 30_000,
      leaseMs: 120_000,
    },
    wake: () => worker?.wake(),
  };
  worker = new NotificationWorker(deps, opts.pollMs ?? 5000);
  const gate = new AlarmEventGate(base.db);
  const subscription: Subscription = await base.transport.subscribe(
    opts.consumerName ?? 'notifications',
    async (event) => {
      if ((await handleAlarmEvent(deps, gate, event)) > 0) deps.wake();
    },
    { group: 'alarm', concurrency: 8 },
  );
  worker.start();
  base.logger.info({ mail_configured: mailer.configured, poll_ms: opts.pollMs ?? 5000 }, 'notification settings');
  return {
    deps,
    worker,
    async stop() {
      await subscription.stop();
      await worker!.stop();
      mailer.close();
      sources.close();
    },
  };
}

export type RunningNotifications = Awaited<ReturnType<typeof startNotifications>>;
