import { serviceAuthOrExit } from '@mp/grpc';
import { createLogger, stopOnSignals } from '@mp/kit';
import { parseGatewayConfig } from './config.js';
import { startGateway } from './gateway.js';

// Standalone process entry (one gateway replica).
const config = parseGatewayConfig();
const auth = serviceAuthOrExit('gateway', config);
const logger = createLogger('gateway');
const gateway = await startGateway(config, logger, { auth });
logger.info({ baseUrl: gateway.baseUrl, sandboxBaseUrl: gateway.sandboxBaseUrl }, 'gateway listening');

stopOnSignals(() => gateway.stop());
