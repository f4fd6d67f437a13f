import { Metadata, type Client, type ChannelCredentials, type handleUnaryCall, type ServiceError, type ServiceDefinition } from '@grpc/grpc-js';
import { CALLER_METADATA_KEY, signCallerContext } from './caller-token.js';
import type { CallerContext } from './context.js';
import { fromGrpcError } from './errors.js';
import { localServerFor, MAX_MESSAGE_BYTES } from './in-process.js';
import { channelCredentials, type ServiceAuth } from './tls.js';

/** Promise-returning client derived from the same server interface the handlers implement. */
export type PromiseClient<S> = {
  // The generated interfaces extend grpc-js's index signature; keep only the named methods.
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res> ? (req: Req, ctx: CallerContext) => Promise<Res> : never;
} & { close(): void };

type GeneratedClientCtor = new (address: string, creds: ChannelCredentials, options?: object) => Client;

const ROUND_ROBIN = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

/**
 * `127.0.0.1:1,127.0.0.1:2` → `ipv4:127.0.0.1:1,127.0.0.1:2` (grpc-js's static list of IPv4
 * addresses); anything else as given (use `dns:///name:port` for names with several addresses).
 */
export function targetOf(address: string): string {
  if (!address.includes(',') || /^[a-z0-9+.-]+:\/\//i.test(address) || /^(ipv4|ipv6|dns|unix):/.test(address)) return address;
  return `ipv4:${address}`;
}

export interface ClientOptions {
  /** This process's keyring (and mTLS material): every call carries a context made with it. */
  auth: ServiceAuth;
  /** The party the client calls (`identity`, `projects`, …): the audience of its contexts. */
  audience: string;
  deadlineMs?: number;
  /**
   * A call to a server of this same process skips the network (default true, ADR 0125): same
   * encoding, caller context, policy and errors, no HTTP/2 or TLS. False: always the network.
   */
  inProcess?: boolean;
}

/**
 * Wraps a ts-proto generated client: every call gets the caller context as an authenticated token
 * for that service and method, a deadline, and failures come back as DomainError with the
 * service's six-digit code.
 */
export function createClient<S>(Ctor: GeneratedClientCtor, definition: ServiceDefinition, address: string, opts: ClientOptions): PromiseClient<S> {
  const { creds, options } = channelCredentials(opts.auth.tls, opts.audience);
  const client = new Ctor(targetOf(address), creds, {
    // Calls are spread over every address the target resolves to: the replicas behind a
    // Kubernetes headless service (dns:///monitoring-data:50053), or a list `host:port,host:port`.
    'grpc.service_config': ROUND_ROBIN,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    ...options,
  }) as unknown as Record<string, (...args: unknown[]) => unknown> & Client;
  const deadlineMs = opts.deadlineMs ?? 35_000;
  const inProcess = opts.inProcess !== false && !address.includes(',');
  const wrapped: Record<string, unknown> = { close: () => client.close() };
  for (const [method, def] of Object.entries(definition)) {
    wrapped[method] = (req: unknown, ctx: CallerContext) => {
      const md = new Metadata();
      md.set(CALLER_METADATA_KEY, signCallerContext(opts.auth.keyring, opts.audience, def.path, ctx));
      if (ctx.traceparent) md.set('traceparent', ctx.traceparent);
      // Looked up per call: a server that stops (or starts) later changes the way.
      const local = inProcess ? localServerFor(address, def.path, opts.auth, opts.audience) : undefined;
      if (local) {
        return local
          .call(def.path, req, md, deadlineMs, def.requestSerialize, def.responseDeserialize)
          .catch((err: ServiceError) => Promise.reject(fromGrpcError(err)));
      }
      return new Promise((resolve, reject) => {
        client[method]!.call(client, req, md, { deadline: Date.now() + deadlineMs }, (err: ServiceError | null, res: unknown) =>
          err ? reject(fromGrpcError(err)) : resolve(res),
        );
      });
    };
  }
  return wrapped as PromiseClient<S>;
}
