import { createHash } from 'node:crypto';
import type { Database, Migration } from './types.js';

/**
 * Applies the service's migrations in id order, each in its own transaction, once. An advisory
 * lock keyed by the schema makes concurrent replicas wait for one another instead of racing.
 */
export async function migrate(db: Database, schema: string, migrations: Migration[]): Promise<string[]> {
  const lockKey = createHash('sha256').update(`migrate:${schema}`).digest().readInt32BE(0);
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
    // Inside the lock: replicas creating the schema at the same moment would collide otherwise.
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ id: string }>(`SELECT id FROM ${schema}.schema_migrations`)).rows.map((r) => r.id));
    for (const m of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
      if (done.has(m.id)) continue;
      // Statements run one by one so the migration stays inside this transaction on both drivers.
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query(`INSERT INTO ${schema}.schema_migrations (id) VALUES ($1)`, [m.id]);
      applied.push(m.id);
    }
  });
  return applied;
}

/** Splits on semicolons outside quotes and dollar-quoted bodies. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = '';
  let i = 0;
  let quote: string | null = null;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (quote) {
      if (sql.startsWith(quote, i)) {
        current += quote;
        i += quote.length;
        quote = null;
        continue;
      }
      current += ch;
      i++;
      continue;
    }
    if (ch === "'") quote = "'";
    else if (ch === '$') {
      const m = /^\$[a-zA-Z_]*\$/.exec(sql.slice(i));
      if (m) {
        quote = m[0];
        current += m[0];
        i += m[0].length;
        continue;
      }
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      continue;
    } else if (ch === ';') {
      if (current.trim()) out.push(current.trim());
      current = '';
      i++;
      continue;
    }
    current += ch;
    i++;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}
