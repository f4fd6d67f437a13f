import { DomainError } from '@mp/errors';
import { createOnce, IdempotencyKey, idempotencyMigration, migrate, purgeIdempotencyKeys, type Database } from '@mp/db';
import { SecretBox, newMasterKey } from '@mp/kit';
import { DRIVERS, openTestDatabase } from './drivers.js';

const HOUR = 3600_000;
const t0 = new Date('2026-06-01T00:00:00Z');
const caller = (key?: string) => ({ tenantId: 'ten_1', environment: 'live', principalId: 'key_1', ...(key ? { idempotencyKey: key } : {}) });

// The shared Idempotency-Key store (ADR 0012), the same on both drivers.
describe.each(DRIVERS)('createOnce on %s', (_name, kind) => {
  let db: Database;
  let remove: () => Promise<void>;
  const keys = async () => (await db.query<{ key: string }>('SELECT key FROM idempotency_keys ORDER BY key')).rows.map((r) => r.key);
  const items = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM items')).rows[0]!.n;
  const insertItem = (id: string) => async (tx: { query: Database['query'] }) => {
    await tx.query('INSERT INTO items (id) VALUES ($1)', [id]);
    return { id, secret: `secret-of-${id}` };
  };

  beforeAll(async () => {
    ({ db, remove } = await openTestDatabase(kind, 'svc'));
    await migrate(db, 'svc', [idempotencyMigration, { id: '001_items', sql: 'CREATE TABLE items (id text PRIMARY KEY)' }]);
  });
  afterAll(() => remove?.());

  it('runs without a key, and does not even encode the request', async () => {
    let encoded = 0;
    expect(IdempotencyKey.of(caller(), 'Op', () => new Uint8Array([++encoded]), t0)).toBeUndefined();
    expect(encoded).toBe(0);
    await createOnce(db, t0, caller(), 'Op', { a: 1 }, insertItem('plain'));
    expect(await keys()).toEqual([]);
  });

  it('replays by the request, whatever its key order; bytes are hashed as they are', async () => {
    const first = await createOnce(db, t0, caller('k-json'), 'Op', { a: 1, b: { c: [1, 2] } }, insertItem('json-1'));
    expect(await createOnce(db, t0, caller('k-json'), 'Op', { b: { c: [1, 2] }, a: 1 }, insertItem('json-2'))).toEqual(first);
    const bytes = IdempotencyKey.of(caller('k-bytes'), 'Op', () => new Uint8Array([1, 2, 3]), t0)!;
    await bytes.run(db, insertItem('bytes-1'));
    expect(await IdempotencyKey.of(caller('k-bytes'), 'Op', new Uint8Array([1, 2, 3]), t0)!.replay(db)).toEqual({ id: 'bytes-1', secret: 'secret-of-bytes-1' });
    await expect(IdempotencyKey.of(caller('k-bytes'), 'Op', new Uint8Array([1, 2, 4]), t0)!.replay(db)).rejects.toMatchObject({ code: '409006' });
    expect(await IdempotencyKey.of(caller('k-unused'), 'Op', {}, t0)!.replay(db)).toBeUndefined();
    expect(await items()).toBe(3);
  });

  it('answers 409006 for another request and keeps nothing of a refused one', async () => {
    await createOnce(db, t0, caller('k-409'), 'Op', { a: 1 }, insertItem('c-1'));
    const other = createOnce(db, t0, caller('k-409'), 'Op', { a: 2 }, insertItem('c-2'));
    await expect(other).rejects.toBeInstanceOf(DomainError);
    await expect(other).rejects.toMatchObject({ code: '409006', field: 'Idempotency-Key' });
    await expect(createOnce(db, t0, caller('k-refused'), 'Op', {}, async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await keys()).not.toContain('k-refused');
    expect((await createOnce(db, t0, caller('k-refused'), 'Op', {}, insertItem('c-3'))).id).toBe('c-3');
  });

  it('stores a response with a secret sealed, and opens it on replay', async () => {
    const box = new SecretBox(newMasterKey());
    const first = await createOnce(db, t0, caller('k-sealed'), 'Op', {}, insertItem('s-1'), { sealer: box });
    expect(await createOnce(db, t0, caller('k-sealed'), 'Op', {}, insertItem('s-2'), { sealer: box })).toEqual(first);
    const { rows } = await db.query<{ response: string }>("SELECT response::text AS response FROM idempotency_keys WHERE key = 'k-sealed'");
    expect(rows[0]!.response).toContain('"sealed"');
    expect(rows[0]!.response).not.toContain('secret-of-s-1');
  });

  it('forgets keys after 24 h: a keyed write clears expired ones on its way, the sweep the rest', async () => {
    const before = await keys();
    expect(before.length).toBeGreaterThan(1);
    const later = new Date(t0.getTime() + 24 * HOUR + 1000);
    // The same key again after the window is a new request.
    expect((await createOnce(db, later, caller('k-json'), 'Op', { a: 9 }, insertItem('late-1'))).id).toBe('late-1');
    expect(await keys()).toEqual(['k-json']);
    expect(await purgeIdempotencyKeys(db, new Date(later.getTime() + 24 * HOUR))).toBe(1);
    expect(await keys()).toEqual([]);
  });

  it('refuses a key over 255 characters with 400003', () => {
    expect(() => IdempotencyKey.of(caller('k'.repeat(256)), 'Op', {}, t0)).toThrow(expect.objectContaining({ code: '400003' }));
  });
});
