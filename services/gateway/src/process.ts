import { loadServiceAuth } from '@mp/grpc';
import { createLogger, requireSettings, startLifecycle, startOrExit } from '@mp/kit';
import { parseGatewayConfig } from './config.js';
import { startGateway } from './gateway.js';
import { gatewayArgsFrom } from './compose.js';
import type { Tracing } from '@mp/telemetry';

// The standalone process (one gateway replica): `main.ts` starts tracing first, then imports this.
export async function run(tracing: Tracing | null): Promise<void> {
  const { gateway, life, logger } = await startOrExit('gateway', async () => {
    const config = parseGatewayConfig();
    const auth = loadServiceAuth('gateway', config);
    requireSettings('gateway', config, ['MP_REDIS_URL']);
    const logger = createLogger('gateway');
    // The ops server before anything is opened (a taken port stops the start at once): /livez
    // answers during migrations, /readyz says "not yet" until the process serves (ADR 0045).
    const life = await startLifecycle('gateway', config, logger);
    const gateway = await startGateway(...gatewayArgsFrom(config, { auth, logger, ready: life.ready }));
    logger.info({ baseUrl: gateway.baseUrl, sandboxBaseUrl: gateway.sandboxBaseUrl }, 'gateway listening');
    return { gateway, life, logger };
  });

  // SIGHUP: a renewed serving certificate (MP_TLS_CERT_FILE / MP_TLS_KEY_FILE) is served to new
  // connections without a restart; the files are also looked at every MP_TLS_RELOAD_INTERVAL_MS.
  process.on('SIGHUP', () => {
    gateway.reloadCertificate().then(
      (r) => logger.info({ ...r, file: gateway.certificatePath }, r.reloaded ? 'TLS certificate reloaded' : 'TLS certificate unchanged'),
      (err: unknown) => logger.error({ err, file: gateway.certificatePath }, 'TLS certificate not reloaded; the one in use is kept'),
    );
  });
  life.serving([() => gateway.drain(), () => gateway.stop(), async () => tracing?.shutdown()], () => gateway.metrics());
}
