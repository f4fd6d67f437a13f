import { Server, status, type handleUnaryCall, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { DomainError, isDomainError } from '@mp/errors';
import { listenError, type Logger } from '@mp/kit';
import { CALLER_METADATA_KEY, CallerAuthError, verifyCallerContext } from './caller-token.js';
import type { CallerContext } from './context.js';
import { toGrpcError } from './errors.js';
import { observeCall } from './metrics.js';
import { routeLibraryLog } from './library-log.js';
import { serverCredentials, type ServiceAuth } from './tls.js';

/**
 * A handler as service code writes it: the request and the caller's context in, a promise of the
 * response out. `Handlers<XxxServer>` derives these signatures from the ts-proto server interface,
 * so every handler is typed by the contract.
 */
export type Handlers<S> = {
  // The generated interfaces extend grpc-js's index signature; keep only the named methods.
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res> ? (req: Req, ctx: CallerContext) => Promise<Res> : never;
};

/**
 * Which parties may call which methods (handler names, e.g. `createTenant`) of a service; `'*'`
 * is every method. A party not named may call nothing.
 */
export type CallerPolicy = Readonly<Record<string, '*' | readonly string[]>>;

export interface ServiceBinding<S> {
  name: string;
  definition: ServiceDefinition;
  handlers: Handlers<S>;
  callers: CallerPolicy;
}

/** Pairs a generated service definition with handlers typed by its server interface and who may call them. */
export function bindService<S>(name: string, definition: ServiceDefinition, handlers: Handlers<S>, callers: CallerPolicy): ServiceBinding<S> {
  return { name, definition, handlers, callers };
}

const mayCall = (policy: CallerPolicy, caller: string, method: string) => {
  const allowed = policy[caller];
  return allowed === '*' || (allowed !== undefined && allowed.includes(method));
};

function adapt<S>(binding: ServiceBinding<S>, auth: ServiceAuth, logger: Logger): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {};
  for (const [method, fn] of Object.entries(binding.handlers) as [string, (req: unknown, ctx: CallerContext) => Promise<unknown>][]) {
    const path = binding.definition[method]!.path;
    impl[method] = ((call, rawCallback) => {
      const startedAt = performance.now();
      const callback: typeof rawCallback = (err, ...rest) => {
        observeCall(binding.name, method, err ? (err.code ?? status.UNKNOWN) : status.OK, startedAt);
        rawCallback(err, ...rest);
      };
      // Authenticate before anything else: an unsigned, expired, tampered or misdirected context,
      // or a caller this method does not admit, never reaches the use case.
      let ctx: CallerContext;
      try {
        const token = call.metadata.get(CALLER_METADATA_KEY)[0];
        ctx = verifyCallerContext(auth.keyring, typeof token === 'string' ? token : undefined, path);
        if (!mayCall(binding.callers, ctx.caller!, method)) throw new CallerAuthError(`${ctx.caller} may not call ${method}`);
      } catch (err) {
        const reason = err instanceof CallerAuthError ? err.message : 'caller context unreadable';
        logger.warn({ method, peer: call.getPeer(), reason }, 'unauthenticated gRPC call refused');
        callback({ code: status.UNAUTHENTICATED, details: `Caller not authenticated: ${reason}.` });
        return;
      }
      const traceparent = call.metadata.get('traceparent')[0];
      if (typeof traceparent === 'string' && traceparent.length <= 128) ctx.traceparent = traceparent;
      fn(call.request, ctx).then(
        (res) => callback(null, res),
        (err: unknown) => {
          if (isDomainError(err)) {
            if (err.httpStatus >= 500) logger.error({ err, request_id: ctx.requestId, method }, 'request failed');
            callback(toGrpcError(err));
            return;
          }
          logger.error({ err, request_id: ctx.requestId, method }, 'unexpected error');
          callback(toGrpcError(new DomainError('500001', { detail: `Internal error; quote request ${ctx.requestId} to support.` })));
        },
      );
    }) as handleUnaryCall<unknown, unknown>;
  }
  return impl;
}

export interface GrpcServerHandle {
  port: number;
  health: HealthImplementation;
  /**
   * Stops taking calls and lets those in flight finish (clients are told by GOAWAY); past
   * `graceMs` (default 5 s) the rest are cancelled.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts a gRPC server with the given services plus grpc.health.v1 reporting SERVING. Every call
 * but the health check must carry a caller context authenticated for this service (`auth`); with
 * `auth.tls` the port speaks TLS only and requires a client certificate of the same CA.
 */
export async function startGrpcServer(opts: {
  host?: string;
  port: number;
  services: ServiceBinding<never>[] | ServiceBinding<any>[];
  auth: ServiceAuth;
  logger: Logger;
  /** The setting that chose the port (`MP_IDENTITY_GRPC_PORT`), named when it cannot be bound. */
  portSetting?: string;
}): Promise<GrpcServerHandle> {
  routeLibraryLog(opts.logger);
  const server = new Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  const statusMap: ServingStatusMap = { '': 'SERVING' };
  for (const s of opts.services) statusMap[s.name] = 'SERVING';
  // Health says only SERVING or not, so probes (kubelet's gRPC probe) need no credential.
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  for (const s of opts.services) server.addService(s.definition, adapt(s, opts.auth, opts.logger));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host ?? '127.0.0.1'}:${opts.port}`, serverCredentials(opts.auth.tls), (err, p) =>
      err ? reject(listenError(opts.portSetting ?? 'gRPC port', opts.host ?? '127.0.0.1', opts.port, err)) : resolve(p),
    ),
  );
  return {
    port,
    health,
    stop: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        for (const s of opts.services) health.setStatus(s.name, 'NOT_SERVING');
        const timer = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

export { status };
