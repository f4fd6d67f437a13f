/**
 * How the client moves one HTTP exchange. The client itself never touches the network: Node code
 * gets `nodeTransport` (node:https, with `ca` for a private deployment) from the `@mp/sdk` entry,
 * a browser gets `fetchTransport` (globalThis.fetch) from `@mp/sdk/browser`, and either can be
 * given explicitly as `transport`.
 */
export interface RawAnswer {
  status: number;
  /** Lower-case names, as node:http gives them. */
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface SendOptions {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** Extra trusted certificate authorities (PEM), e.g. a private deployment's; Node transport only. */
  ca?: string | Uint8Array;
  timeoutMs: number;
}

/** One exchange, the whole answer read as text; a failure to get an answer rejects with TransportError. */
export type Transport = (opts: SendOptions) => Promise<RawAnswer>;
