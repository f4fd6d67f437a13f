import { arrayParam, utf8Param, type Database } from '@mp/db';
import { DRIVERS, openTestDatabase } from './drivers.js';

describe.each(DRIVERS)('array parameters on %s', (_name, kind) => {
  let db: Database;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    ({ db, remove } = await openTestDatabase(kind, 'arrays'));
  });
  afterAll(async () => remove());

  it('arrive element for element: text with quotes, commas, braces, backslashes and non-ASCII, and NULLs', async () => {
    const texts = ['plain', '', 'a "quoted", {braced} value', 'back\\slash', 'Süd-Böschung 北', 'ASCII first, then 4-byte 😀𝒳 and é', 'NULL', null];
    const { rows } = await db.query<{ v: string | null; i: number }>('SELECT v, i::int AS i FROM unnest($1::text[]) WITH ORDINALITY AS u(v, i) ORDER BY i', [
      arrayParam('text', texts),
    ]);
    expect(rows.map((r) => r.v)).toEqual(texts);
  });

  it('keep numbers exact (float8 to the last bit, int2 signed) and NULLs', async () => {
    const floats = [0.1, -3512345.101, 1e300, -0, 5e-324, 45.30100000000001, null];
    const shorts = [0, -1080, 840, 32767, -32768, null];
    const { rows } = await db.query<{ f: (number | null)[]; s: (number | null)[] }>('SELECT $1::float8[] AS f, $2::smallint[] AS s', [
      arrayParam('float8', floats),
      arrayParam('int2', shorts),
    ]);
    expect(rows[0]!.f).toEqual(floats);
    expect(rows[0]!.s).toEqual(shorts);
  });

  it('take instants as epoch milliseconds, before 1970 and 2000 included', async () => {
    const instants = [Date.UTC(2026, 2, 1, 8, 0, 0, 123), Date.UTC(1999, 11, 31, 23, 59, 59, 999), Date.UTC(1960, 0, 1), 0, null];
    const { rows } = await db.query<{ t: string | null }>(
      `SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t FROM unnest($1::timestamptz[]) WITH ORDINALITY AS u(t, i) ORDER BY i`,
      [arrayParam('timestamptz', instants)],
    );
    expect(rows.map((r) => r.t)).toEqual(instants.map((ms) => (ms === null ? null : new Date(ms).toISOString())));
  });

  it('can be empty, and work in prepared statements and transactions', async () => {
    await db.exec('CREATE TABLE IF NOT EXISTS pairs (k text PRIMARY KEY, v float8)');
    const n = await db.transaction(async (tx) => {
      const insert = (ks: string[], vs: number[]) =>
        tx.query('INSERT INTO pairs (k, v) SELECT * FROM unnest($1::text[], $2::float8[])', [arrayParam('text', ks), arrayParam('float8', vs)], {
          prepare: 'pairs_insert',
        });
      await insert(['a', 'b'], [1.5, 2.5]);
      await insert([], []);
      return (await insert(['c'], [3.5])).rowCount;
    });
    expect(n).toBe(1);
    expect((await db.query('SELECT k, v FROM pairs ORDER BY k')).rows).toEqual([
      { k: 'a', v: 1.5 },
      { k: 'b', v: 2.5 },
      { k: 'c', v: 3.5 },
    ]);
  });
});

describe.each(DRIVERS)('text given as UTF-8 bytes on %s', (_name, kind) => {
  let db: Database;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    ({ db, remove } = await openTestDatabase(kind, 'utf8'));
    await db.exec('CREATE TABLE texts (id int PRIMARY KEY, v text NOT NULL)');
  });
  afterAll(async () => remove());

  it('is stored as the text it encodes, in plain and prepared statements, and equals the same text given as a string', async () => {
    const text = `{"name":"Süd-Böschung 北 😀","quote":"\\"","n":${'1234567890'.repeat(30_000)}}`;
    const bytes = Buffer.from(text);
    await db.query('INSERT INTO texts (id, v) VALUES ($1, $2)', [1, utf8Param(bytes)]);
    await db.query('INSERT INTO texts (id, v) VALUES ($1, $2)', [2, utf8Param(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))], {
      prepare: 'utf8_insert',
    });
    await db.query('INSERT INTO texts (id, v) VALUES ($1, $2)', [3, text], { prepare: 'utf8_insert' });
    const { rows } = await db.query<{ id: number; v: string; same: boolean }>(
      'SELECT id, v, v = (SELECT v FROM texts WHERE id = 3) AS same FROM texts ORDER BY id',
    );
    expect(rows.map((r) => [r.id, r.v === text, r.same])).toEqual([
      [1, true, true],
      [2, true, true],
      [3, true, true],
    ]);
  });
});
