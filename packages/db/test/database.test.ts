import { createPgDatabase, migrate, retryOnConflict, splitStatements, type Database, type Migration } from '@mp/db';
import { createTestDatabase, queryTestDatabase } from '@mp/testing';
import { DRIVERS, openTestDatabase } from './drivers.js';

const migrations: Migration[] = [
  { id: '001_items', sql: "CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL, at timestamptz NOT NULL DEFAULT now(), note text DEFAULT 'a;b');" },
  {
    id: '002_fn',
    sql: 'CREATE FUNCTION twice(x int) RETURNS int AS $$ SELECT x * 2; $$ LANGUAGE sql; -- comment; with semicolon\nCREATE INDEX items_n ON items (n);',
  },
];

// The same behaviour must hold on both drivers: the service code cannot tell them apart.
describe.each(DRIVERS)('Database on %s', (_name, kind) => {
  let db: Database;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    ({ db, remove } = await openTestDatabase(kind, 'svc'));
  });
  afterAll(() => remove?.());

  it('applies migrations once, in order', async () => {
    expect(await migrate(db, 'svc', migrations)).toEqual(['001_items', '002_fn']);
    expect(await migrate(db, 'svc', migrations)).toEqual([]);
    const { rows } = await db.query<{ v: number }>('SELECT twice(21) AS v');
    expect(rows[0]!.v).toBe(42);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id, n) VALUES ($1, $2)', ['a', 1]);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO items (id, n) VALUES ($1, $2)', ['b', 2]);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const { rows } = await db.query<{ id: string }>('SELECT id FROM items ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual(['a']);
  });

  it('returns timestamps as ISO strings and counts as numbers', async () => {
    const { rows } = await db.query<{ at: string; n: number }>('SELECT at, count(*) OVER () AS n FROM items');
    expect(typeof rows[0]!.at).toBe('string');
    expect(new Date(rows[0]!.at).toISOString()).toBe(rows[0]!.at);
    expect(rows[0]!.n).toBe(1);
  });

  it('runs a prepared (named) statement again and again, in and out of transactions', async () => {
    const sql = 'SELECT n * $1::int AS v FROM items WHERE id = $2';
    for (const k of [2, 3, 4]) expect((await db.query<{ v: number }>(sql, [k, 'a'], { prepare: 'test_times' })).rows).toEqual([{ v: k }]);
    const inTx = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id, n) VALUES ($1, $2)', ['p', 5]);
      return (await tx.query<{ v: number }>(sql, [10, 'p'], { prepare: 'test_times' })).rows;
    });
    expect(inTx).toEqual([{ v: 50 }]);
    await db.query('DELETE FROM items WHERE id = $1', ['p']);
  });

  it('reports unique violations with code 23505', async () => {
    await expect(db.query('INSERT INTO items (id, n) VALUES ($1, $2)', ['a', 9])).rejects.toMatchObject({ code: '23505' });
  });
});

describe('splitStatements', () => {
  it('splits on semicolons outside quotes, dollar quotes and comments', () => {
    expect(splitStatements("SELECT 'a;b'; SELECT $$x;y$$; -- c;d\nSELECT 3")).toEqual(["SELECT 'a;b'", 'SELECT $$x;y$$', 'SELECT 3']);
  });
});

describe('reserved connections (PostgreSQL)', () => {
  it('answers on its own connections while every pooled one is held, and closes with the database', async () => {
    const tdb = await createTestDatabase();
    const db = createPgDatabase({ url: tdb.url, schema: 'svc', max: 1 });
    try {
      const reserved = db.reserve(1);
      let release!: () => void;
      let entered!: () => void;
      const inTransaction = new Promise<void>((r) => (entered = r));
      const held = db.transaction(() => {
        entered();
        return new Promise<void>((r) => (release = r));
      });
      await inTransaction;
      // The only pooled connection is in the transaction; a pooled query would wait for it.
      let pooledDone = false;
      const pooled = db.query('SELECT 1 AS v').then(() => (pooledDone = true));
      const { rows } = await reserved.query<{ v: number }>('SELECT 2 AS v');
      expect(rows).toEqual([{ v: 2 }]);
      expect(pooledDone).toBe(false);
      release();
      await held;
      await pooled;
      expect(pooledDone).toBe(true);
      const names = await queryTestDatabase<{ n: string }>(
        tdb.url,
        "SELECT application_name AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'svc%' ORDER BY 1",
      );
      expect(names.map((r) => r.n)).toEqual(['svc', 'svc-reserved']);
    } finally {
      await db.close();
      await tdb.drop();
    }
  });

  it('plans for keys on reserved connections that ask for it, and only there (ADR 0058)', async () => {
    const tdb = await createTestDatabase();
    const db = createPgDatabase({ url: tdb.url, schema: 'svc', max: 1 });
    try {
      const show = async (q: Database) =>
        (
          await q.query<{ seq: string; hash: string; jit: string; path: string }>(
            `SELECT current_setting('enable_seqscan') AS seq, current_setting('enable_hashjoin') AS hash, current_setting('jit') AS jit, current_setting('search_path') AS path`,
          )
        ).rows[0];
      expect(await show(db.reserve(1, { keyedPlans: true }))).toEqual({ seq: 'off', hash: 'off', jit: 'off', path: 'svc,public' });
      // The service's pool and other reserved connections plan as usual.
      expect(await show(db)).toMatchObject({ seq: 'on', hash: 'on', path: 'svc,public' });
      expect(await show(db.reserve(1))).toMatchObject({ seq: 'on', hash: 'on' });
    } finally {
      await db.close();
      await tdb.drop();
    }
  });
});

describe('retryOnConflict (PostgreSQL)', () => {
  it('runs a transaction PostgreSQL rolled back to break a deadlock again, so both writers succeed', async () => {
    const tdb = await createTestDatabase();
    const db = createPgDatabase({ url: tdb.url, schema: 'svc', max: 4 });
    try {
      await migrate(db, 'svc', migrations);
      await db.query("INSERT INTO items (id, n) VALUES ('a', 0), ('b', 0)");
      // Two transactions lock the same two rows in opposite orders, each waiting at a barrier
      // after its first lock: PostgreSQL aborts one of them with 40P01.
      let arrived = 0;
      let release!: () => void;
      const barrier = new Promise<void>((r) => (release = r));
      const attempts = { ab: 0, ba: 0 };
      const writer = (first: string, second: string, name: 'ab' | 'ba') =>
        retryOnConflict(() =>
          db.transaction(async (tx) => {
            attempts[name]++;
            await tx.query('UPDATE items SET n = n + 1 WHERE id = $1', [first]);
            if (attempts[name] === 1 && ++arrived === 2) release();
            if (attempts[name] === 1) await barrier;
            await tx.query('UPDATE items SET n = n + 1 WHERE id = $1', [second]);
          }),
        );
      await Promise.all([writer('a', 'b', 'ab'), writer('b', 'a', 'ba')]);
      // one of them ran twice; each added one to both rows exactly once
      expect(attempts.ab + attempts.ba).toBe(3);
      expect((await db.query<{ id: string; n: number }>('SELECT id, n FROM items ORDER BY id')).rows).toEqual([
        { id: 'a', n: 2 },
        { id: 'b', n: 2 },
      ]);
      // anything else is not retried
      let runs = 0;
      await expect(
        retryOnConflict(async () => {
          runs++;
          await db.query('SELECT 1/0');
        }),
      ).rejects.toMatchObject({ code: '22012' });
      expect(runs).toBe(1);
    } finally {
      await db.close();
      await tdb.drop();
    }
  });
});
