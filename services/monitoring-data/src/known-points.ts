import type { Queryable } from '@mp/db';

/**
 * Registers the points that have data (data_points) inside the write's transaction. Points this
 * replica has already registered are skipped, so a steady stream of writes adds no statement.
 */
export class KnownPoints {
  private readonly known = new Set<string>();

  unknown(pointIds: Iterable<string>): string[] {
    const out: string[] = [];
    for (const id of pointIds) if (!this.known.has(id)) out.push(id);
    return out;
  }

  async register(tx: Queryable, scope: { tenantId: string; environment: string; projectId: string }, pointIds: string[]): Promise<void> {
    if (pointIds.length === 0) return;
    await tx.query(
      `INSERT INTO data_points (point_id, project_id, tenant_id, environment)
       SELECT p, $2, $3, $4 FROM unnest($1::text[]) AS p ON CONFLICT (point_id) DO NOTHING`,
      // In id order, as every writer inserts them: two first writes of the same points cannot deadlock.
      [[...pointIds].sort(), scope.projectId, scope.tenantId, scope.environment],
    );
  }

  /** Called after the transaction committed. */
  remember(pointIds: string[]): void {
    if (this.known.size > 500_000) this.known.clear();
    for (const id of pointIds) this.known.add(id);
  }
}
