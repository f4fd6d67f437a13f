import { openApiDocument } from './openapi.js';
import { gatewayRoutes } from '../route-table.js';

/** The OpenAPI document of the gateway as it is built now, formatted as committed (docs/openapi.json). */
export function currentOpenApiText(): string {
  const specs = gatewayRoutes().flatMap((r) => (r.spec ? [r.spec] : []));
  return `${JSON.stringify(openApiDocument(specs), null, 2)}\n`;
}
