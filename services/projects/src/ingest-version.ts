import { projects } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { createClient, type CallerContext, type PromiseClient, type ServiceAuth } from '@mp/grpc';

/** Where a project's new ingest version is handed before the change commits (monitoring-data). */
export type IngestVersionSink = Pick<PromiseClient<projects.IngestVersionsServer>, 'advanceIngestVersion' | 'scheduleRecompute'>;

/**
 * The monitoring-data services that cache ingest contexts, as the projects service reaches them.
 * Started without a target (the projects service alone, or before monitoring-data has a port),
 * versions are still bumped but handed to no one; `connect` names the target later.
 */
export class IngestVersionTarget {
  private sink: (IngestVersionSink & { close?(): void }) | null = null;

  constructor(private readonly auth: ServiceAuth) {}

  /** An address (`host:port`, a list, `dns:///…`) or a client, e.g. one shared in-process. */
  connect(target: string | IngestVersionSink): void {
    this.close();
    this.sink =
      typeof target === 'string'
        ? createClient<projects.IngestVersionsServer>(projects.IngestVersionsClient, projects.IngestVersionsService, target, {
            auth: this.auth,
            audience: 'monitoring-data',
            deadlineMs: 5_000,
          })
        : target;
  }

  /**
   * Bumps the project's ingest version in `tx` and hands it to monitoring-data, which stores it
   * before answering. Call it last in the transaction of a change: when monitoring-data cannot
   * be told, the change is refused (the error rolls `tx` back), so no answered change is ever
   * invisible to a data write (ADR 0022). The project row must already be locked FOR UPDATE by
   * `tx` (as `projectFor(..., { lock: 'update' })` does), or two changes of one project holding
   * share locks would deadlock here.
   */
  async bump(tx: Queryable, ctx: CallerContext, projectId: string): Promise<number> {
    const { rows } = await tx.query<{ v: string | number }>(
      'UPDATE projects SET ingest_version = ingest_version + 1 WHERE id = $1 RETURNING ingest_version AS v',
      [projectId],
    );
    const version = rows[0] ? Number(rows[0].v) : 0;
    if (!rows[0] || !this.sink) return version;
    await this.sink.advanceIngestVersion({ projectId, version }, ctx);
    return version;
  }

  /**
   * Hands monitoring-data the recomputation of a point's readings after a new calibration
   * (ADR 0116) or a change of its derived channels (ADR 0117). Call it in the transaction that adds the calibration, before it commits: when
   * monitoring-data cannot be told, the calibration is refused. A job for a calibration whose
   * transaction then rolls back recomputes with the calibrations that exist, which changes nothing.
   */
  async scheduleRecompute(ctx: CallerContext, req: projects.RecomputeRequest): Promise<void> {
    if (!this.sink) return;
    await this.sink.scheduleRecompute(req, ctx);
  }

  close(): void {
    this.sink?.close?.();
    this.sink = null;
  }
}
