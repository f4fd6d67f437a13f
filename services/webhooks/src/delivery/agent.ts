import type tls from 'node:tls';
import { Agent } from 'undici';
import { connectOptions } from './send.js';
import type { AddressPolicy, ResolveHost } from './target-guard.js';

export interface DeliveryAgentOptions {
  /** Let connections go to private and reserved addresses (MP_WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowPrivate?: boolean;
  /** Trusted CAs (the system roots plus NODE_EXTRA_CA_CERTS), built once. */
  secureContext?: tls.SecureContext;
  /** Trusted CAs as PEM, used instead of the system roots when no secureContext is given (tests). */
  ca?: string[];
  /** Replaces the system resolver (tests). */
  resolve?: ResolveHost;
  /** Replaces the address policy (tests). */
  isForbidden?: AddressPolicy;
}

/**
 * The keep-alive connection pool of one webhooks service (undici, ADR 0059): attempts to the same
 * receiver reuse TLS connections instead of paying a handshake each (the difference between
 * hundreds and thousands of deliveries per second), and undici's client takes about half the CPU
 * per request of node:https (bench/webhooks). Every connection is opened through the address
 * guard. Idle connections are closed after 4 s (or sooner when the receiver's Keep-Alive header
 * says so), under the 5 s keep-alive of common servers, so a pooled connection is rarely one the
 * receiver has already closed; when it is, sendWebhook sends once more on a fresh one.
 */
export function createDeliveryAgent(opts: DeliveryAgentOptions = {}): Agent {
  return new Agent({
    keepAliveTimeout: 4000,
    keepAliveMaxTimeout: 4000,
    pipelining: 1,
    connect: connectOptions({ allowPrivate: opts.allowPrivate ?? false, ...opts }),
  });
}
