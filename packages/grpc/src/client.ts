import { credentials, type Client, type handleUnaryCall, type ServiceError, type ServiceDefinition } from '@grpc/grpc-js';
import type { CallerContext } from './context.js';
import { contextToMetadata } from './context.js';
import { fromGrpcError } from './errors.js';

/** Promise-returning client derived from the same server interface the handlers implement. */
export type PromiseClient<S> = {
  // The generated interfaces extend grpc-js's index signature; keep only the named methods.
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res> ? (req: Req, ctx: CallerContext) => Promise<Res> : never;
} & { close(): void };

type GeneratedClientCtor = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => Client;

/**
 * Wraps a ts-proto generated client: every call gets the caller context as metadata, a deadline,
 * and failures come back as DomainError with the service's six-digit code.
 */
export function createClient<S>(Ctor: GeneratedClientCtor, definition: ServiceDefinition, address: string, opts: { deadlineMs?: number } = {}): PromiseClient<S> {
  const client = new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
  }) as unknown as Record<string, (...args: unknown[]) => unknown> & Client;
  const deadlineMs = opts.deadlineMs ?? 35_000;
  const wrapped: Record<string, unknown> = { close: () => client.close() };
  for (const method of Object.keys(definition)) {
    wrapped[method] = (req: unknown, ctx: CallerContext) =>
      new Promise((resolve, reject) => {
        client[method]!.call(client, req, contextToMetadata(ctx), { deadline: Date.now() + deadlineMs }, (err: ServiceError | null, res: unknown) =>
          err ? reject(fromGrpcError(err)) : resolve(res),
        );
      });
  }
  return wrapped as PromiseClient<S>;
}
