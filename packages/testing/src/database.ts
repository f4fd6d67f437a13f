import pg from 'pg';
import { randomToken } from '@mp/kit';

/** The server tests create their databases on; trust auth on the build machines. */
export const TEST_PG_ADMIN_URL = process.env.MP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A test's own connection that loses its server (a fault test restarting PostgreSQL) fails its
 * query; without a listener its 'error' event would also end the test process.
 */
const ignoreLostConnection = (): void => undefined;

/** A fresh, empty database for one test file, so files never see each other's rows. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `mp_t_${randomToken(12)}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  admin.on('error', ignoreLostConnection);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
      c.on('error', ignoreLostConnection);
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Runs one query against a test database (for asserting stored rows). */
export async function queryTestDatabase<R = Record<string, unknown>>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', ignoreLostConnection);
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as R[];
  } finally {
    await c.end();
  }
}

/**
 * Runs `lockSql` (e.g. `LOCK TABLE … IN ACCESS EXCLUSIVE MODE`) in a transaction that stays open
 * until `release()` rolls it back: a test holds a service's write inside its call, deterministically.
 */
export async function holdDatabaseLock(url: string, lockSql: string): Promise<{ release(): Promise<void> }> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', ignoreLostConnection);
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query(lockSql);
  } catch (err) {
    await c.end();
    throw err;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await c.query('ROLLBACK').finally(() => c.end());
    },
  };
}
