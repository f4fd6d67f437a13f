import { Server, ServerCredentials, status, type handleUnaryCall, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { DomainError, isDomainError } from '@mp/errors';
import type { Logger } from '@mp/kit';
import { contextFromMetadata, type CallerContext } from './context.js';
import { toGrpcError } from './errors.js';

/**
 * A handler as service code writes it: the request and the caller's context in, a promise of the
 * response out. `Handlers<XxxServer>` derives these signatures from the ts-proto server interface,
 * so every handler is typed by the contract.
 */
export type Handlers<S> = {
  // The generated interfaces extend grpc-js's index signature; keep only the named methods.
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res> ? (req: Req, ctx: CallerContext) => Promise<Res> : never;
};

export interface ServiceBinding<S> {
  name: string;
  definition: ServiceDefinition;
  handlers: Handlers<S>;
}

/** Pairs a generated service definition with handlers typed by its server interface. */
export function bindService<S>(name: string, definition: ServiceDefinition, handlers: Handlers<S>): ServiceBinding<S> {
  return { name, definition, handlers };
}

function adapt<S>(binding: ServiceBinding<S>, logger: Logger): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {};
  for (const [method, fn] of Object.entries(binding.handlers) as [string, (req: unknown, ctx: CallerContext) => Promise<unknown>][]) {
    impl[method] = ((call, callback) => {
      const ctx = contextFromMetadata(call.metadata);
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
  stop(): Promise<void>;
}

/** Starts a gRPC server with the given services plus grpc.health.v1 reporting SERVING. */
export async function startGrpcServer(opts: {
  host?: string;
  port: number;
  services: ServiceBinding<never>[] | ServiceBinding<any>[];
  logger: Logger;
}): Promise<GrpcServerHandle> {
  const server = new Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  const statusMap: ServingStatusMap = { '': 'SERVING' };
  for (const s of opts.services) statusMap[s.name] = 'SERVING';
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  for (const s of opts.services) server.addService(s.definition, adapt(s, opts.logger));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host ?? '127.0.0.1'}:${opts.port}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    port,
    health,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of opts.services) health.setStatus(s.name, 'NOT_SERVING');
        const timer = setTimeout(() => server.forceShutdown(), 5000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

export { status };
