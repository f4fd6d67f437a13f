import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgDatabase, createPgliteDatabase, type Database } from '@mp/db';
import { createTestDatabase } from '@mp/testing';

/** The two drivers every Database behaviour must hold on: the service code cannot tell them apart. */
export const DRIVERS = [
  ['PostgreSQL (pg)', 'pg'],
  ['PGlite (embedded)', 'pglite'],
] as const;

/** A fresh database of the given driver with `schema` on its search path, and how to remove it. */
export async function openTestDatabase(kind: 'pg' | 'pglite', schema: string): Promise<{ db: Database; remove(): Promise<void> }> {
  if (kind === 'pg') {
    const tdb = await createTestDatabase();
    const db = createPgDatabase({ url: tdb.url, schema });
    return { db, remove: async () => (await db.close(), await tdb.drop()) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mp-pglite-'));
  const db = await createPgliteDatabase({ dataDir: dir, schema });
  return { db, remove: async () => (await db.close(), rmSync(dir, { recursive: true, force: true })) };
}
