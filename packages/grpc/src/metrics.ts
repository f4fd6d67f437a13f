import { status } from '@grpc/grpc-js';
import { counter, DURATION_BUCKETS, histogram } from '@mp/kit';

/** Per service and method (names from the contracts: bounded), on the process registry (ADR 0036). */
const handled = counter({
  name: 'mp_grpc_server_handled_total',
  help: 'gRPC calls answered, by service, method and status code name (OK, INVALID_ARGUMENT, UNAUTHENTICATED, …).',
  labelNames: ['service', 'method', 'code'],
});
const handling = histogram({
  name: 'mp_grpc_server_handling_seconds',
  help: 'Time a gRPC call took to answer, by service and method.',
  labelNames: ['service', 'method'],
  buckets: DURATION_BUCKETS,
});

const CODE_NAMES = new Map(
  Object.entries(status)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v as number, k]),
);

export function observeCall(service: string, method: string, code: number, startedAt: number): void {
  handled.inc({ service, method, code: CODE_NAMES.get(code) ?? 'UNKNOWN' });
  handling.observe({ service, method }, (performance.now() - startedAt) / 1000);
}
