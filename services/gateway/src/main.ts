import { createLogger, stopOnSignals } from '@mp/kit';
import { parseGatewayConfig } from './config.js';
import { startGateway } from './gateway.js';

// Standalone process entry (one gateway replica).
const logger = createLogger('gateway');
const gateway = await startGateway(parseGatewayConfig(), logger);
logger.info({ baseUrl: gateway.baseUrl, sandboxBaseUrl: gateway.sandboxBaseUrl }, 'gateway listening');

stopOnSignals(() => gateway.stop());
