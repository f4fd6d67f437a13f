import { z } from 'zod';
import { envPort } from './config.js';
import type { Logger } from './logger.js';
import { processMetrics } from './metrics.js';
import { DEFAULT_OPS_PORT, startOpsServer, type OpsEndpoints, type OpsServer } from './ops-server.js';
import { listenError } from './startup.js';

/** The settings of every standalone process's ops server and drain (README "Settings"). */
export const lifecycleSettings = {
  /** The internal ops server (/livez, /readyz, /metrics): reached by probes and Prometheus, never public. */
  MP_OPS_HOST: z.string().default('0.0.0.0'),
  MP_OPS_PORT: envPort(DEFAULT_OPS_PORT),
  /**
   * From SIGTERM to closing the listeners: /readyz already answers 503, so load balancers take the
   * process out of rotation while it still serves. 0 when a preStop hook already waited (the chart).
   */
  MP_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(300_000).default(0),
  /** The bound of a drain: requests still running this long after SIGTERM are cut and the process exits 1. */
  MP_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(25_000),
};

export type LifecycleSettings = { [K in keyof typeof lifecycleSettings]: z.infer<(typeof lifecycleSettings)[K]> };

export interface Lifecycle {
  ops: OpsServer;
  /** False while starting and from the first SIGTERM/SIGINT on. */
  ready(): boolean;
  /**
   * The process now serves: /readyz answers 200, and a signal drains it by running `steps` in
   * order (servers first, so in-flight calls finish; then transport and database), then exits.
   * `extraMetrics` joins the process registry's /metrics (series read at scrape time).
   */
  serving(steps: (() => Promise<void>)[], extraMetrics?: OpsEndpoints['metrics']): void;
}

/**
 * The life of one standalone process (ADR 0045): its ops server from the first moment (so
 * /livez answers during migrations and /readyz says "not yet"), readiness once it serves, and
 * on SIGTERM a drain: readiness fails first, the listeners close and in-flight requests finish,
 * then the process exits; past MP_SHUTDOWN_TIMEOUT_MS it exits anyway, with code 1.
 */
export async function startLifecycle(name: string, settings: LifecycleSettings, logger: Logger): Promise<Lifecycle> {
  let state: 'starting' | 'serving' | 'draining' = 'starting';
  let steps: (() => Promise<void>)[] = [];
  const registry = processMetrics();
  let extra: OpsEndpoints['metrics'] | undefined;
  const endpoints: OpsEndpoints = {
    ready: () => state === 'serving',
    metrics: async () => {
      const own = await registry();
      return extra ? { contentType: own.contentType, text: `${own.text}\n${(await extra()).text}` } : own;
    },
  };
  const ops = await startOpsServer(endpoints, settings.MP_OPS_HOST, settings.MP_OPS_PORT).catch((err: unknown) => {
    throw listenError('MP_OPS_PORT', settings.MP_OPS_HOST, settings.MP_OPS_PORT, err);
  });
  logger.info({ ops_port: ops.port }, `${name} ops server listening`);

  const drain = async (signal: NodeJS.Signals) => {
    if (state === 'draining') return;
    const wasServing = state === 'serving';
    state = 'draining';
    const bound = setTimeout(() => {
      logger.error({ timeout_ms: settings.MP_SHUTDOWN_TIMEOUT_MS }, 'drain did not finish in time; exiting');
      process.exit(1);
    }, settings.MP_SHUTDOWN_TIMEOUT_MS);
    logger.info({ signal, delay_ms: settings.MP_DRAIN_DELAY_MS }, 'draining: not ready; in-flight requests finish');
    try {
      if (wasServing && settings.MP_DRAIN_DELAY_MS > 0) await new Promise((r) => setTimeout(r, settings.MP_DRAIN_DELAY_MS));
      for (const step of steps) await step();
      await ops.close();
    } catch (err) {
      logger.error({ err }, 'drain failed');
      process.exit(1);
    }
    clearTimeout(bound);
    logger.info('drained; exiting');
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void drain(signal));

  return {
    ops,
    ready: () => state === 'serving',
    serving(stopSteps, extraMetrics) {
      steps = stopSteps;
      extra = extraMetrics;
      if (state === 'starting') state = 'serving';
    },
  };
}
