import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import type { Logger } from '@mp/kit';

let routed = false;

/**
 * grpc-js writes its own errors to stderr as plain text ("E No address added …"), which breaks a
 * log stream of JSON lines. The first server of the process routes them through its logger
 * (grpc-js has one logger per process), as JSON lines at warn.
 */
export function routeLibraryLog(logger: Logger): void {
  if (routed) return;
  routed = true;
  const write = (...args: unknown[]) => logger.warn({ library: 'grpc-js' }, format(...args));
  setLogger({ error: write, info: write, debug: write });
}
