import { ApiError, TransportError, type ErrorEnvelope } from './errors.js';
import { fetchTransport } from './fetch-transport.js';
import { ROUTES, type Routes, type Token } from './generated.js';
import { randomId } from './random-id.js';
import type { RawAnswer, Transport } from './transport.js';

export type RouteName = keyof Routes;
type Empty = Record<string, never>;
/** `Nothing extends RequestArgs<K>` holds when every argument of the route is optional. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
type Nothing = {};

/** What a call takes: path parameters where the path has them, query and body where the route does. */
export type RequestArgs<K extends RouteName> = (Routes[K]['path'] extends Empty ? { path?: Empty } : { path: Routes[K]['path'] }) &
  (Routes[K]['query'] extends Empty ? { query?: Empty } : { query?: Routes[K]['query'] }) &
  (Routes[K]['body'] extends undefined ? { body?: undefined } : { body: Routes[K]['body'] }) & {
    /** Overrides the Idempotency-Key the client makes for a creating write. */
    idempotencyKey?: string;
  };

/** Routes that answer a cursor page. */
export type ListRoute = {
  [K in RouteName]: Routes[K]['response'] extends { items: unknown[]; next_cursor: string | null; has_more: boolean } ? K : never;
}[RouteName];
export type ItemOf<K extends ListRoute> = Routes[K]['response'] extends { items: Array<infer I> } ? I : never;

export interface ClientOptions {
  /** `https://host/v3` (the live base URL) or the sandbox's. */
  baseUrl: string;
  /** Server-side integrations: an API key (X-API-Key). */
  apiKey?: string;
  /** Or a user: the client signs in when first needed and refreshes on 401002. */
  credentials?: { username: string; password: string };
  /** Or a session you already hold (e.g. restored from storage). */
  tokens?: { accessToken: string; refreshToken: string };
  /**
   * Or a session the caller keeps (a browser app whose refresh token is an HttpOnly cookie): the
   * client sends `accessToken()` as the bearer token; on 401002 it awaits `refresh()` and, when
   * that answers true, repeats the call once; false means the session is over and the 401002
   * ApiError is thrown.
   */
  session?: SessionHook;
  /** Extra trusted certificate authorities (PEM) for a private deployment (Node transport only). */
  ca?: string | Uint8Array;
  /** How an exchange travels: `nodeTransport` (the `@mp/sdk` default) or `fetchTransport` (the `@mp/sdk/browser` default). */
  transport?: Transport;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  /**
   * The longest single wait before a retry (default: no limit). A retry that would wait longer is
   * not made and the error is thrown at once (with `retryAfter`), e.g. for a user interface that
   * should not stall for a minute on a 429.
   */
  maxWaitMs?: number;
  /** How the client waits between attempts; replaceable in tests and schedulers. */
  sleep?: (ms: number) => Promise<void>;
  /** Called when the client signs in or refreshes, to persist the session. */
  onTokens?: (tokens: { accessToken: string; refreshToken: string }) => void;
}

export interface SessionHook {
  accessToken(): string | null | undefined;
  refresh(): Promise<boolean>;
}

/** Client guidance of docs/rules.md#client-retries. */
const SERVER_ERROR_BACKOFF_MS = [1000, 2000, 4000];
const RATE_LIMIT_RETRIES = 3;
const DEFAULT_RETRY_AFTER_S = 60;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The Monitoring Platform API v3. `request('POST /projects', { body })` answers the `data` of the
 * success envelope, typed from the OpenAPI document; a refusal throws ApiError. It follows the
 * client guidance of docs/rules.md#client-retries: on 401002 it refreshes the session and repeats once; on 429 it
 * waits Retry-After (60 s when absent); on 5xx it backs off 1 s, 2 s, 4 s (three retries at most);
 * a creating write carries one Idempotency-Key across all its attempts, so a retry never creates
 * twice.
 */
export class MonitoringPlatform {
  private readonly base: URL;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly transport: Transport;
  private tokens: { accessToken: string; refreshToken: string } | undefined;
  private signingIn: Promise<void> | undefined;

  constructor(private readonly opts: ClientOptions) {
    this.base = new URL(opts.baseUrl.replace(/\/$/, '') + '/');
    this.sleep = opts.sleep ?? realSleep;
    this.transport = opts.transport ?? fetchTransport;
    this.tokens = opts.tokens;
    if (!opts.apiKey && !opts.credentials && !opts.tokens && !opts.session) {
      throw new Error('MonitoringPlatform: give apiKey, credentials, tokens or session.');
    }
  }

  /** Calls one route and answers its data. */
  async request<K extends RouteName>(
    route: K,
    ...[args]: Nothing extends RequestArgs<K> ? [RequestArgs<K>?] : [RequestArgs<K>]
  ): Promise<Routes[K]['response']> {
    const a = (args ?? {}) as { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; idempotencyKey?: string };
    const [method, template] = (route as string).split(' ') as [string, string];
    const meta = ROUTES[route];
    const url = this.url(template, a.path ?? {}, a.query ?? {});
    const body = a.body === undefined ? undefined : JSON.stringify(a.body);
    const idempotencyKey = a.idempotencyKey ?? (meta.idempotent ? randomId() : undefined);
    const retryOnNetwork = method === 'GET' || idempotencyKey !== undefined;
    const maxWaitMs = this.opts.maxWaitMs ?? Infinity;
    let refreshed = false;
    let serverRetries = 0;
    let rateRetries = 0;
    for (;;) {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      if (meta.auth) Object.assign(headers, await this.authHeaders());
      let answer: RawAnswer;
      try {
        answer = await this.transport({
          method,
          url,
          headers,
          ...(body !== undefined ? { body } : {}),
          ...(this.opts.ca ? { ca: this.opts.ca } : {}),
          timeoutMs: this.opts.timeoutMs ?? 30_000,
        });
      } catch (err) {
        const backoff = SERVER_ERROR_BACKOFF_MS[serverRetries];
        if (retryOnNetwork && backoff !== undefined && backoff <= maxWaitMs) {
          serverRetries++;
          await this.sleep(backoff);
          continue;
        }
        throw err;
      }
      const parsed = parseJson(answer.text);
      if (answer.status >= 200 && answer.status < 300) {
        if (parsed === undefined) throw new TransportError(`HTTP ${answer.status} without a JSON body`, answer.status);
        return (meta.envelope ? (parsed as { data: unknown }).data : parsed) as Routes[K]['response'];
      }
      const envelope = isEnvelope(parsed) ? parsed : undefined;
      const retryAfter = retryAfterOf(answer);
      if (envelope?.code === 401002 && meta.auth && !refreshed && !this.opts.apiKey) {
        refreshed = true;
        if (await this.refresh()) continue;
      }
      const rateWait = (retryAfter ?? DEFAULT_RETRY_AFTER_S) * 1000;
      if (answer.status === 429 && rateRetries < RATE_LIMIT_RETRIES && rateWait <= maxWaitMs) {
        rateRetries++;
        await this.sleep(rateWait);
        continue;
      }
      const backoff = SERVER_ERROR_BACKOFF_MS[serverRetries];
      if (answer.status >= 500 && backoff !== undefined && backoff <= maxWaitMs) {
        serverRetries++;
        await this.sleep(backoff);
        continue;
      }
      if (!envelope) throw new TransportError(`HTTP ${answer.status} with a body that is not the API's error envelope`, answer.status);
      throw new ApiError(answer.status, envelope, retryAfter);
    }
  }

  /**
   * Every item of a list route, page after page (`for await (const p of mp.paginate('GET /projects'))`);
   * `query.limit` sets the page size.
   */
  async *paginate<K extends ListRoute>(route: K, ...[args]: Nothing extends RequestArgs<K> ? [RequestArgs<K>?] : [RequestArgs<K>]): AsyncGenerator<ItemOf<K>> {
    const a = (args ?? {}) as { path?: unknown; query?: Record<string, unknown> };
    let cursor: string | undefined;
    for (;;) {
      const query = { ...(a.query ?? {}), ...(cursor ? { cursor } : {}) };
      const call = this.request as (r: RouteName, args: unknown) => Promise<{ items: ItemOf<K>[]; next_cursor: string | null; has_more: boolean }>;
      const page = await call.call(this, route, { ...a, query });
      yield* page.items;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /** The session's tokens (after a sign-in or refresh), to persist between runs. */
  get session(): { accessToken: string; refreshToken: string } | undefined {
    return this.tokens;
  }

  private url(template: string, path: Record<string, string>, query: Record<string, unknown>): URL {
    const filled = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
      const value = path[name];
      if (value === undefined) throw new Error(`path parameter ${name} is missing`);
      return encodeURIComponent(value);
    });
    const url = new URL(filled.replace(/^\//, ''), this.base);
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    return url;
  }

  private async authHeaders(): Promise<Record<string, string>> {
    if (this.opts.apiKey) return { 'x-api-key': this.opts.apiKey };
    if (this.opts.session) {
      const token = this.opts.session.accessToken();
      return token ? { authorization: `Bearer ${token}` } : {};
    }
    if (!this.tokens) await this.signIn();
    return { authorization: `Bearer ${this.tokens!.accessToken}` };
  }

  private signIn(): Promise<void> {
    // Concurrent first calls share one sign-in.
    this.signingIn ??= (async () => {
      const { username, password } = this.opts.credentials ?? {};
      if (!username || !password) throw new Error('MonitoringPlatform: the session ended and no credentials were given to sign in again.');
      const token = await this.request('POST /auth/login', { body: { username, password, grant_type: 'password' } });
      this.keep(token);
    })().finally(() => (this.signingIn = undefined));
    return this.signingIn;
  }

  /**
   * 401002: the caller's session hook renews (false: the session is over); otherwise a new access
   * token from the refresh token, and when that is refused too, a new sign-in. True: repeat the call.
   */
  private async refresh(): Promise<boolean> {
    if (this.opts.session) return this.opts.session.refresh();
    if (this.tokens) {
      try {
        this.keep(await this.request('POST /auth/refresh', { body: { refresh_token: this.tokens.refreshToken } }));
        return true;
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 401 || !this.opts.credentials) throw err;
      }
    }
    this.tokens = undefined;
    await this.signIn();
    return true;
  }

  private keep(token: Token): void {
    this.tokens = { accessToken: token.access_token, refreshToken: token.refresh_token };
    this.opts.onTokens?.(this.tokens);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isEnvelope(v: unknown): v is ErrorEnvelope {
  const e = v as ErrorEnvelope | undefined;
  return !!e && typeof e.code === 'number' && typeof e.message === 'string' && !!e.data && !!e.meta;
}

function retryAfterOf(answer: RawAnswer): number | null {
  const raw = answer.headers['retry-after'];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return raw !== undefined && Number.isFinite(value) && value >= 0 ? value : null;
}
