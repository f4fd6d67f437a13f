import { createHash } from 'node:crypto';
import type { Database } from '@mp/db';

/** Name of the monthly partition that holds an instant (UTC months), e.g. data_records_p202603. */
export function partitionOf(ms: number): string {
  const d = new Date(ms);
  return `data_records_p${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

function monthBounds(name: string): [string, string] {
  const y = Number(name.slice(-6, -2));
  const m = Number(name.slice(-2));
  const from = new Date(Date.UTC(y, m - 1, 1)).toISOString();
  const to = new Date(Date.UTC(y, m, 1)).toISOString();
  return [from, to];
}

/** The first instant of the month before the one of `ms`. */
function monthStartBefore(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
}

/**
 * Monthly partitions of data_records, created when a write first needs one. Which ones exist is
 * remembered per replica, so a write in a known month costs nothing here. Creation runs in its
 * own transaction under an advisory lock, so replicas creating the same month wait for one
 * another instead of failing; it commits before the data transaction that needs it. Only the
 * current and previous months are remembered: older ones may be dropped by the archive job.
 */
export class Partitions {
  private readonly known = new Set<string>();
  /** [from, to) in ms of the partition matched last: most writes fall in it, tested with two comparisons. */
  private lastRange: [number, number] = [0, 0];

  constructor(private readonly db: Database) {}

  async ensureFor(instantsMs: Iterable<number>): Promise<void> {
    const needed = new Set<string>();
    const [lo, hi] = this.lastRange;
    const remembered = monthStartBefore(Date.now());
    for (const ms of instantsMs) {
      if (ms >= lo && ms < hi && lo >= remembered) continue;
      const name = partitionOf(ms);
      if (!this.known.has(name) || ms < remembered) needed.add(name);
      else this.remember(name);
    }
    if (needed.size === 0) return;
    const names = [...needed].sort();
    const { rows } = await this.db.query<{ name: string }>(`SELECT n AS name FROM unnest($1::text[]) AS n WHERE to_regclass(n) IS NULL`, [names]);
    const missing = new Set(rows.map((r) => r.name));
    for (const name of names) {
      if (missing.has(name)) await this.create(name);
      // Months before the previous one may be archived and dropped by any replica (archive.ts):
      // looked up on each write rather than remembered, so a late reading recreates its month.
      if (name < partitionOf(remembered)) continue;
      this.known.add(name);
      this.remember(name);
    }
  }

  private remember(name: string): void {
    const [from, to] = monthBounds(name);
    this.lastRange = [Date.parse(from), Date.parse(to)];
  }

  private async create(name: string): Promise<void> {
    const [from, to] = monthBounds(name);
    const lockKey = createHash('sha256').update(`partition:${name}`).digest().readInt32BE(0);
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
      await tx.query(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF data_records FOR VALUES FROM ('${from}') TO ('${to}')`);
    });
  }
}
