import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgliteDatabase, migrate, type Database } from '@mp/db';

// ADR 0051: the embedded default keeps every service in one PGlite database (a schema each) in
// one folder; the services of the process take turns on its single session.
describe('PGlite: several schemas on one folder', () => {
  let dir: string;
  let a: Database;
  let b: Database;
  const table = [{ id: '001_items', sql: 'CREATE TABLE items (id int PRIMARY KEY, owner text NOT NULL)' }];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mp-pglite-shared-'));
    a = await createPgliteDatabase({ dataDir: dir, schema: 'svc_a' });
    b = await createPgliteDatabase({ dataDir: dir, schema: 'svc_b' });
    await migrate(a, 'svc_a', table);
    await migrate(b, 'svc_b', table);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is one database: each schema sees its own tables under the same names', async () => {
    await a.query(`INSERT INTO items VALUES (1, 'a')`);
    await Promise.all([
      b.query(`INSERT INTO items VALUES (1, 'b')`),
      b.query(`INSERT INTO items VALUES (2, 'b')`),
      a.query(`INSERT INTO items VALUES (2, 'a')`),
    ]);
    expect((await a.query('SELECT owner FROM items ORDER BY id')).rows).toEqual([{ owner: 'a' }, { owner: 'a' }]);
    expect((await b.query('SELECT owner FROM items ORDER BY id')).rows).toEqual([{ owner: 'b' }, { owner: 'b' }]);
    // one database: the other schema is there, qualified
    expect((await a.query('SELECT count(*)::int AS n FROM svc_b.items')).rows).toEqual([{ n: 2 }]);
    // one folder, one PostgreSQL data directory
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    expect(readdirSync(dir)).not.toContain('svc_a');
  });

  it('runs a statement that a transaction waits for inside that transaction: committed with it, undone with it', async () => {
    // as the projects service hands a version to the monitoring-data handler in this process
    const handOver = (id: number) => b.query(`INSERT INTO items VALUES ($1, 'handed over')`, [id]);
    await a.transaction(async (tx) => {
      await tx.query(`INSERT INTO items VALUES (10, 'a')`);
      await handOver(10);
    });
    await expect(
      a.transaction(async (tx) => {
        await tx.query(`INSERT INTO items VALUES (11, 'a')`);
        await handOver(11);
        throw new Error('refused after the hand-over');
      }),
    ).rejects.toThrow('refused after the hand-over');
    expect((await a.query('SELECT id FROM items')).rows).toEqual([{ id: 10 }]);
    expect((await b.query('SELECT id FROM items')).rows).toEqual([{ id: 10 }]);
  });

  it('runs a transaction nested that way as a savepoint: its failure leaves the outer one going', async () => {
    await a.transaction(async (tx) => {
      await tx.query(`INSERT INTO items VALUES (20, 'a')`);
      await expect(
        b.transaction(async (btx) => {
          await btx.query(`INSERT INTO items VALUES (20, 'b')`);
          await btx.query(`INSERT INTO items VALUES (20, 'b again')`);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      await b.transaction((btx) => btx.query(`INSERT INTO items VALUES (21, 'b')`));
      await tx.query(`INSERT INTO items VALUES (22, 'a')`);
    });
    expect((await a.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 20 }, { id: 22 }]);
    expect((await b.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 21 }]);
  });

  it('makes a statement from outside a transaction wait for it, so it never sees uncommitted rows', async () => {
    const order: string[] = [];
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tx = a
      .transaction(async (q) => {
        await q.query(`INSERT INTO items VALUES (30, 'a')`);
        entered();
        await gate;
      })
      .then(() => order.push('a committed'));
    await inside;
    // issued here, outside the transaction's context: it takes its turn after the transaction
    const read = b.query<{ n: number }>('SELECT count(*)::int AS n FROM svc_a.items').then((r) => (order.push('b read'), r.rows[0]!.n));
    release();
    expect(await read).toBe(1);
    await tx;
    expect(order).toEqual(['a committed', 'b read']);
  });

  it('keeps both schemas across a restart, and one schema closed leaves the other open', async () => {
    await a.query(`INSERT INTO items VALUES (40, 'a')`);
    await b.query(`INSERT INTO items VALUES (41, 'b')`);
    await a.close();
    expect((await b.query('SELECT id FROM items')).rows).toEqual([{ id: 41 }]);
    await b.close();
    a = await createPgliteDatabase({ dataDir: dir, schema: 'svc_a' });
    b = await createPgliteDatabase({ dataDir: dir, schema: 'svc_b' });
    expect((await a.query('SELECT id, owner FROM items')).rows).toEqual([{ id: 40, owner: 'a' }]);
    expect((await b.query('SELECT id, owner FROM items')).rows).toEqual([{ id: 41, owner: 'b' }]);
  });
});
