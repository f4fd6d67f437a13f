import { serviceAuthOrExit } from '@mp/grpc';
import { createLogger, requireSettingsOrExit, startLifecycle } from '@mp/kit';
import { parseGatewayConfig } from './config.js';
import { startGateway } from './gateway.js';

// Standalone process entry (one gateway replica).
const config = parseGatewayConfig();
const auth = serviceAuthOrExit('gateway', config);
requireSettingsOrExit('gateway', config, ['MP_REDIS_URL']);
const logger = createLogger('gateway');
const life = await startLifecycle('gateway', config, logger);
const gateway = await startGateway(config, logger, { auth, ready: life.ready });
logger.info({ baseUrl: gateway.baseUrl, sandboxBaseUrl: gateway.sandboxBaseUrl }, 'gateway listening');

life.serving([() => gateway.drain(), () => gateway.stop()], () => gateway.metrics());
