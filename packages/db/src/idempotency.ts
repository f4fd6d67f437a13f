import { createHash } from 'node:crypto';
import { DomainError } from '@mp/errors';
import type { Database, Migration, Queryable } from './types.js';

/** How long a key's first response is replayed (docs/rules.md#idempotency). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** Expired keys a keyed write deletes on its way (besides its own), so the table cannot grow without a sweep. */
const PURGE_ON_WRITE = 20;

/**
 * The table behind Idempotency-Key, added to the migrations of every service with creating writes.
 * The projects service made the same table in its own 002 migration (jsonb response) and does not
 * list this one; `IF NOT EXISTS` keeps it harmless if it ever does.
 */
export const idempotencyMigration: Migration = {
  id: '000_idempotency_keys',
  sql: `
    -- Idempotency-Key of creating writes: the first response, kept 24 h (docs/adr/0012).
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      tenant_id text NOT NULL,
      environment text NOT NULL,
      key text NOT NULL,
      request_hash text NOT NULL,
      -- json, not jsonb: written once, read back whole, never searched (a data write's response
      -- holds up to 1,000 ids). Responses holding a secret are stored sealed: {"sealed": "v2...."}.
      response json,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, environment, key)
    );
    CREATE INDEX IF NOT EXISTS idempotency_keys_age ON idempotency_keys (created_at);
  `,
};

/** The part of the gRPC CallerContext that scopes a key (structural, so @mp/db needs no @mp/grpc). */
export interface IdempotencyCaller {
  tenantId: string;
  environment: string;
  principalId: string;
  idempotencyKey?: string | undefined;
}

/** Encrypts stored responses that hold a secret; SecretBox of @mp/kit is one. */
export interface ResponseSealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

/**
 * What identifies the request. An object is hashed as JSON with sorted keys; bytes in a stable
 * encoding (protobuf columns of a data write) are hashed as they are, which stays cheap for 1,000
 * records; a function giving those bytes is called only when a key was sent.
 */
export type IdempotentRequest = object | Uint8Array | (() => Uint8Array);

export interface IdempotencyOptions {
  /** Seal the stored response (it holds a secret shown once: webhook secret, API key value). */
  sealer?: ResponseSealer;
}

/** JSON with object keys sorted, so the same request always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface KeyRow {
  request_hash: string;
  response: unknown;
}

/**
 * One creating write under the caller's Idempotency-Key. `replay` answers a repeat before any
 * validation; `run` performs the write with the key row in the same transaction.
 */
export class IdempotencyKey {
  private constructor(
    private readonly scope: [string, string, string],
    private readonly hash: string,
    private readonly now: Date,
    private readonly sealer: ResponseSealer | undefined,
  ) {}

  /**
   * The key of this request, or undefined when the caller sent none. A key over 255 characters
   * is 400003. The principal is part of the hash: another caller's key collision is 409006,
   * never a replay of someone else's response.
   */
  static of(ctx: IdempotencyCaller, operation: string, request: IdempotentRequest, now: Date, opts: IdempotencyOptions = {}): IdempotencyKey | undefined {
    const key = ctx.idempotencyKey;
    if (key === undefined || key === '') return undefined;
    if (key.length > 255) {
      throw new DomainError('400003', {
        field: 'Idempotency-Key',
        detail: 'Idempotency-Key is at most 255 characters long.',
        suggestion: 'Use a UUID as the key.',
      });
    }
    const body = typeof request === 'function' ? request() : request;
    const hash = createHash('sha256').update(`${operation}\n${ctx.principalId}\n`);
    hash.update(body instanceof Uint8Array ? body : canonical(body));
    return new IdempotencyKey([ctx.tenantId, ctx.environment, key], hash.digest('hex'), now, opts.sealer);
  }

  /**
   * The first response when this key was committed for this request within the window; 409006
   * when it was used for another; undefined when unused (or still running: `run` waits for it).
   * Lets a repeat skip validation that could judge differently now that the first write is stored.
   */
  async replay<T>(db: Queryable): Promise<T | undefined> {
    const { rows } = await db.query<KeyRow>(
      'SELECT request_hash, response FROM idempotency_keys WHERE tenant_id = $1 AND environment = $2 AND key = $3 AND created_at > $4',
      [...this.scope, this.cutoff()],
    );
    return rows[0] && this.answer<T>(rows[0]);
  }

  /**
   * Runs `create` once per key. The key row is inserted in the transaction of the write, so a
   * concurrent request with the same key waits on it and then replays the stored response; a
   * refused write (any error) rolls the key back, so a corrected retry runs again.
   */
  run<T>(db: Database, create: (tx: Queryable) => Promise<T>): Promise<T> {
    return db.transaction(async (tx) => {
      // This key when it is past the window (so it may be used again), and a few other expired
      // ones; SKIP LOCKED: concurrent writes never wait for each other's clean-up.
      await tx.query(
        `DELETE FROM idempotency_keys WHERE created_at <= $4 AND ((tenant_id = $1 AND environment = $2 AND key = $3) OR (tenant_id, environment, key) IN (
           SELECT tenant_id, environment, key FROM idempotency_keys WHERE created_at <= $4 ORDER BY created_at LIMIT ${PURGE_ON_WRITE} FOR UPDATE SKIP LOCKED))`,
        [...this.scope, this.cutoff()],
      );
      const inserted = await tx.query(
        'INSERT INTO idempotency_keys (tenant_id, environment, key, request_hash, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        [...this.scope, this.hash, this.now.toISOString()],
      );
      if (inserted.rowCount === 0) {
        const { rows } = await tx.query<KeyRow>(
          'SELECT request_hash, response FROM idempotency_keys WHERE tenant_id = $1 AND environment = $2 AND key = $3',
          this.scope,
        );
        return this.answer<T>(rows[0]!);
      }
      const result = await create(tx);
      const json = JSON.stringify(result);
      const stored = this.sealer ? JSON.stringify({ sealed: this.sealer.seal(json) }) : json;
      await tx.query('UPDATE idempotency_keys SET response = $4 WHERE tenant_id = $1 AND environment = $2 AND key = $3', [...this.scope, stored]);
      return result;
    });
  }

  private answer<T>(row: KeyRow): T {
    if (row.request_hash !== this.hash) {
      throw new DomainError('409006', {
        field: 'Idempotency-Key',
        detail: 'This Idempotency-Key was used in the last 24 hours for a different request.',
        suggestion: 'Use a new key for a new request; reuse a key only to retry the identical request.',
      });
    }
    if (!this.sealer) return row.response as T;
    return JSON.parse(this.sealer.open((row.response as { sealed: string }).sealed)) as T;
  }

  private cutoff(): string {
    return new Date(this.now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString();
  }
}

/**
 * Runs a creating write once per Idempotency-Key (see IdempotencyKey); without a key `create`
 * just runs in a transaction. Same key, different operation or body within 24 h: 409006.
 */
export function createOnce<T>(
  db: Database,
  now: Date,
  ctx: IdempotencyCaller,
  operation: string,
  request: IdempotentRequest,
  create: (tx: Queryable) => Promise<T>,
  opts: IdempotencyOptions = {},
): Promise<T> {
  const key = IdempotencyKey.of(ctx, operation, request, now, opts);
  return key ? key.run(db, create) : db.transaction(create);
}

/** Deletes keys past the window (periodic sweeps; keyed writes also remove a few on their way). */
export async function purgeIdempotencyKeys(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM idempotency_keys WHERE created_at <= $1', [new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString()]);
  return rowCount;
}
