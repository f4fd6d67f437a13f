export { startGateway, type RunningGateway } from './gateway.js';
export { parseGatewayConfig, type GatewayConfig } from './config.js';
export { gatewayRoutes, type GatewayRoute } from './route-table.js';
export { gatewayArgsFrom, type GatewayInfra } from './compose.js';
