import { AsyncResource } from 'node:async_hooks';
import { Metadata, status, type MethodDefinition, type ServiceError, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { currentTraceId } from '@mp/kit';
import type { GrpcTls, ServiceAuth } from './tls.js';

/** What both ends accept at most, as grpc-js's `grpc.max_receive_message_length` (client and server). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** A unary handler as grpc-js calls it, after @mp/grpc's adapter (authentication, policy, metrics). */
type UnaryImpl = (
  call: { request: unknown; metadata: Metadata; getPeer(): string },
  callback: (err: Partial<ServiceError> | null, res?: unknown) => void,
) => void;

interface LocalMethod {
  impl: UnaryImpl;
  definition: MethodDefinition<unknown, unknown>;
}

/**
 * A gRPC server of this process as its in-process callers see it (ADR 0125): its methods by path,
 * who it is (the keyring's party, the CA of its certificate), the calls in flight, and the context
 * its handlers run in (the server's, as a network call's would, not the caller's).
 */
export class LocalServer {
  private readonly methods = new Map<string, LocalMethod>();
  private inFlight = 0;
  private idle: (() => void) | null = null;
  private answered = 0;
  private readonly scope = new AsyncResource('mp.grpc.in-process');

  constructor(private readonly auth: ServiceAuth) {}

  /** Calls taken in-process (none of them touched a socket), for tests and the bench. */
  get calls(): number {
    return this.answered;
  }

  add(definition: Record<string, MethodDefinition<unknown, unknown>>, impl: UntypedServiceImplementation): void {
    for (const [name, def] of Object.entries(definition)) {
      const fn = impl[name];
      if (fn) this.methods.set(def.path, { impl: fn as unknown as UnaryImpl, definition: def });
    }
  }

  /**
   * Whether a client with `auth` calling `audience` may skip the network: what mutual TLS would
   * check between the two (the same CA both ways, a server certificate of the audience's party)
   * holds trivially in one process only when both use the same CA and this server is that party,
   * or neither uses TLS. Anything else goes over the network and meets the TLS handshake there.
   */
  admits(auth: ServiceAuth, audience: string): boolean {
    if (this.auth.keyring.self !== audience) return false;
    return sameTls(this.auth.tls, auth.tls);
  }

  has(path: string): boolean {
    return this.methods.has(path);
  }

  /**
   * One unary call without a socket: the request encoded and decoded as on the wire (the handler
   * gets a copy, defaults as the contract sets them), the metadata as the client built it, the
   * answer or the error status back the same way. Resolves with the decoded response or rejects
   * with a ServiceError-shaped object for fromGrpcError.
   */
  call(
    path: string,
    request: unknown,
    metadata: Metadata,
    deadlineMs: number,
    encode: (req: unknown) => Buffer,
    decode: (bytes: Buffer) => unknown,
  ): Promise<unknown> {
    const method = this.methods.get(path)!;
    return new Promise((resolve, reject) => {
      const fail = (code: status, details: string) => reject({ code, details, metadata: new Metadata() });
      let bytes: Buffer;
      try {
        bytes = encode(request);
      } catch (err) {
        fail(status.INTERNAL, `Request serialization failure: ${(err as Error).message}`);
        return;
      }
      if (bytes.length > MAX_MESSAGE_BYTES) {
        fail(status.RESOURCE_EXHAUSTED, `Received message larger than max (${bytes.length} vs. ${MAX_MESSAGE_BYTES})`);
        return;
      }
      let done = false;
      this.begin();
      const timer = setTimeout(() => {
        done = true;
        fail(status.DEADLINE_EXCEEDED, 'Deadline exceeded');
      }, deadlineMs);
      const callback = (err: Partial<ServiceError> | null, res?: unknown) => {
        this.end();
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) {
          reject({ code: err.code ?? status.UNKNOWN, details: err.details ?? '', metadata: err.metadata ?? new Metadata() });
          return;
        }
        try {
          const out = method.definition.responseSerialize(res);
          if (out.length > MAX_MESSAGE_BYTES) fail(status.RESOURCE_EXHAUSTED, `Received message larger than max (${out.length} vs. ${MAX_MESSAGE_BYTES})`);
          else resolve(decode(out));
        } catch (e) {
          fail(status.INTERNAL, `Response serialization failure: ${(e as Error).message}`);
        }
      };
      this.answered++;
      this.scope.runInAsyncScope(() => {
        try {
          method.impl({ request: method.definition.requestDeserialize(bytes), metadata, getPeer: () => 'in-process' }, callback);
        } catch (e) {
          callback({ code: status.INTERNAL, details: `Request deserialization failure: ${(e as Error).message}` });
        }
      });
    });
  }

  /** Resolves when no in-process call is in flight. */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.idle;
      this.idle = () => {
        previous?.();
        resolve();
      };
    });
  }

  private begin() {
    this.inFlight++;
  }

  private end() {
    if (--this.inFlight === 0 && this.idle) {
      const idle = this.idle;
      this.idle = null;
      idle();
    }
  }
}

function sameTls(a: GrpcTls | undefined, b: GrpcTls | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.ca === b.ca;
}

/** The servers of this process by every address a client of it may name. */
const servers = new Map<string, LocalServer>();

/** The addresses a server bound on `host:port` answers at in this process. */
function addressesOf(host: string, port: number): string[] {
  const loopback = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return [`${host}:${port}`, ...loopback];
  if (host === '127.0.0.1' || host === 'localhost') return loopback;
  return [`${host}:${port}`];
}

export function registerLocalServer(host: string, port: number, server: LocalServer): () => void {
  const names = addressesOf(host, port);
  for (const name of names) servers.set(name, server);
  return () => {
    for (const name of names) if (servers.get(name) === server) servers.delete(name);
  };
}

/**
 * The server of this process that a client would reach at `address` for `path`, when the call may
 * skip the network; undefined otherwise. A call made while a trace is active goes over the network,
 * so that the gRPC instrumentation records the hop as in production (ADR 0035).
 */
export function localServerFor(address: string, path: string, auth: ServiceAuth, audience: string): LocalServer | undefined {
  const server = servers.get(address);
  if (!server || !server.has(path) || !server.admits(auth, audience)) return undefined;
  if (currentTraceId() !== undefined) return undefined;
  return server;
}
