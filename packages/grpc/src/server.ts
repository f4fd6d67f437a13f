import { Server, status, type handleUnaryCall, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { isDomainError, unexpectedError } from '@mp/errors';
import { listenError, type Logger } from '@mp/kit';
import { CALLER_METADATA_KEY, CallerAuthError, verifyCallerContext } from './caller-token.js';
import { LocalServer, MAX_MESSAGE_BYTES, registerLocalServer } from './in-process.js';
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
          callback(toGrpcError(unexpectedError(err, ctx.requestId)));
        },
      );
    }) as handleUnaryCall<unknown, unknown>;
  }
  return impl;
}

export interface GrpcServerHandle {
  port: number;
  health: HealthImplementation;
  /** Calls this server answered in-process, without a socket (ADR 0125). */
  readonly inProcessCalls: number;
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
  const server = new Server({ 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES });
  // Clients of this process that call it may skip the network (ADR 0125): the same handlers,
  // authentication and caller policy, without HTTP/2 and TLS between two parts of one process.
  const local = new LocalServer(opts.auth);
  const statusMap: ServingStatusMap = { '': 'SERVING' };
  for (const s of opts.services) statusMap[s.name] = 'SERVING';
  // Health says only SERVING or not, so probes (kubelet's gRPC probe) need no credential.
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  for (const s of opts.services) {
    const impl = adapt(s, opts.auth, opts.logger);
    server.addService(s.definition, impl);
    local.add(s.definition, impl);
  }
  const host = opts.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${opts.port}`, serverCredentials(opts.auth.tls), (err, p) =>
      err ? reject(listenError(opts.portSetting ?? 'gRPC port', host, opts.port, err)) : resolve(p),
    ),
  );
  const unregister = registerLocalServer(host, port, local);
  return {
    port,
    health,
    get inProcessCalls() {
      return local.calls;
    },
    stop: (graceMs = 5000) => {
      // New calls of this process's clients go over the network from here on, and meet the
      // shutdown there as every other client does; those already in flight in-process are
      // waited for within the same grace period as the network's.
      unregister();
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
      });
      for (const s of opts.services) health.setStatus(s.name, 'NOT_SERVING');
      const network = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      return Promise.race([Promise.all([network, local.drained()]), grace]).then(() => clearTimeout(timer));
    },
  };
}

export { status };
