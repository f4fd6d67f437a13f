export { startGateway, type RunningGateway } from './gateway.js';
export { parseGatewayConfig, type GatewayConfig } from './config.js';
