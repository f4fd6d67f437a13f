import type { Database } from '@mp/db';
import type { SecretBox } from '@mp/kit';

/** One column of a service's schema that holds sealed secrets (SecretBox). */
export interface SealedColumn {
  table: string;
  /** The table's primary key columns. */
  key: string[];
  column: string;
  /** A json column holding `{"sealed": "…"}` (idempotency responses) rather than the sealed text. */
  json?: boolean;
}

export interface ResealCount {
  table: string;
  column: string;
  /** Values rewritten under the newest key. */
  resealed: number;
  /** Values already under it. */
  current: number;
}

const BATCH = 500;

/**
 * Rewrites every value of `columns` that is not under the newest key of the ring (ADR 0047). Each
 * row is updated only if it still holds the value read, so a secret rotated meanwhile by the
 * running service is left as that service wrote it; the service can keep serving throughout.
 * Safe to run again: a second run finds every value current.
 */
export async function resealColumns(db: Database, box: SecretBox, columns: SealedColumn[]): Promise<ResealCount[]> {
  const counts: ResealCount[] = [];
  for (const c of columns) {
    const value = c.json ? `(${c.column}->>'sealed')` : c.column;
    const keyList = c.key.join(', ');
    const count: ResealCount = { table: c.table, column: c.column, resealed: 0, current: 0 };
    let after: unknown[] | null = null;
    for (;;) {
      // Keyset pages over the primary key: rows rewritten behind the cursor are not read again.
      const page: { rows: Record<string, unknown>[] } = await db.query<Record<string, unknown>>(
        `SELECT ${keyList}, ${value} AS sealed FROM ${c.table}
          WHERE ${value} IS NOT NULL ${after ? `AND (${keyList}) > (${c.key.map((_, i) => `$${i + 1}`).join(', ')})` : ''}
          ORDER BY ${keyList} LIMIT ${BATCH}`,
        after ?? [],
      );
      for (const row of page.rows) {
        const sealed = row.sealed as string;
        if (box.isCurrent(sealed)) {
          count.current++;
          continue;
        }
        const keyValues = c.key.map((k) => row[k]);
        const set = c.json ? `${c.column} = json_build_object('sealed', $1::text)` : `${c.column} = $1`;
        const where = c.key.map((k, i) => `${k} = $${i + 3}`).join(' AND ');
        const updated = await db.query(`UPDATE ${c.table} SET ${set} WHERE ${value} = $2 AND ${where}`, [box.reseal(sealed), sealed, ...keyValues]);
        if (updated.rowCount !== 0) count.resealed++;
      }
      if (page.rows.length < BATCH) break;
      const last = page.rows[page.rows.length - 1]!;
      after = c.key.map((k) => last[k]);
    }
    counts.push(count);
  }
  return counts;
}
