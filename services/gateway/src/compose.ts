import type { ServiceAuth } from '@mp/grpc';
import type { Logger } from '@mp/kit';
import type { GatewayConfig } from './config.js';
import type { startGateway } from './gateway.js';
import type { CertificatePair } from './serving-certificate.js';

// The one place the gateway's start arguments are put together. Both composition roots call it:
// the standalone process (process.ts) and the one-process platform (apps/platform). The gateway
// reads its settings from the parsed config itself, so what is left to wire is what a root has
// and the other has not (below); the services' addresses come from the config in both (the
// one-process platform parses it with the loopback ports its services got).

export interface GatewayInfra {
  auth: ServiceAuth;
  logger: Logger;
  /** The standalone process's readiness (its ops server's /readyz), which the gateway reports as its own. */
  ready?: () => boolean;
  /** A serving pair handed over by the one-process platform's caller (tests) instead of MP_TLS_* or the self-signed one. */
  tls?: CertificatePair;
}

export function gatewayArgsFrom(config: GatewayConfig, infra: GatewayInfra): Parameters<typeof startGateway> {
  return [
    config,
    infra.logger,
    {
      auth: infra.auth,
      ...(infra.ready ? { ready: infra.ready } : {}),
      ...(infra.tls ? { tls: infra.tls } : {}),
    },
  ];
}
