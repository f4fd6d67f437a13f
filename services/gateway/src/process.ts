import { loadServiceAuth } from '@mp/grpc';
import { createLogger, startOrExit, startProcessOps, stopOnSignals } from '@mp/kit';
import { parseGatewayConfig } from './config.js';
import { startGateway } from './gateway.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one gateway replica): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { gateway, ops } = await startOrExit('gateway', async () => {
    const config = parseGatewayConfig();
    const auth = loadServiceAuth('gateway', config);
    // The ops port before anything is opened: taken, it stops the start at once.
    const ops = await startProcessOps(config);
    const logger = createLogger('gateway');
    const gateway = await startGateway(config, logger, { auth });
    logger.info({ baseUrl: gateway.baseUrl, sandboxBaseUrl: gateway.sandboxBaseUrl }, 'gateway listening');
    return { gateway, ops };
  });

  stopOnSignals(
    () => gateway.stop(),
    async () => ops?.close(),
    async () => tracing?.shutdown(),
  );
}
