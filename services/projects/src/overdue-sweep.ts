import { purgeIdempotencyKeys, type Database } from '@mp/db';
import type { Clock, Logger } from '@mp/kit';
import type { TaskStatus } from '@mp/contracts';
import { emit } from './events.js';

interface FlaggedTask {
  id: string;
  name: string;
  project_id: string;
  project_name: string;
  tenant_id: string;
  environment: 'live' | 'sandbox';
  status: TaskStatus;
  due_at: string;
  assignee_id: string | null;
  assignee_name: string | null;
  assignee_phone: string | null;
}

/**
 * Flags tasks whose deadline passed and raises task.overdue once per task (and deadline). Every
 * replica of the service runs it: the rows are claimed with FOR UPDATE SKIP LOCKED and flagged
 * with `overdue_at IS NULL` re-checked by the UPDATE, in the same transaction as the outbox
 * write — so whichever replica flags a task writes its one event, and the others see it flagged.
 * "Now" comes from the clock, so tests drive it without waiting.
 */
export class OverdueSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly deps: { db: Database; relay: { kick(): void }; logger: Logger; clock: Clock },
    private readonly opts: { intervalMs: number; batchSize?: number },
  ) {}

  /** Starts the periodic sweep; an interval of 0 leaves it to explicit runOnce() calls (tests). */
  start(): void {
    if (this.opts.intervalMs > 0) this.schedule();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep: flags every task due by now; resolves with how many this replica flagged. */
  async runOnce(): Promise<number> {
    const batch = this.opts.batchSize ?? 200;
    let total = 0;
    for (;;) {
      const n = await this.flagBatch(batch);
      total += n;
      if (n < batch) break;
    }
    if (total > 0) this.deps.relay.kick();
    return total;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = null;
        if (this.timer) this.schedule();
      });
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.runOnce();
      await purgeIdempotencyKeys(this.deps.db, this.deps.clock.now());
    } catch (err) {
      this.deps.logger.warn({ err }, 'overdue sweep failed; will retry at the next interval');
    }
  }

  private flagBatch(batch: number): Promise<number> {
    return this.deps.db.transaction(async (tx) => {
      const now = this.deps.clock.now().toISOString();
      const { rows: flagged } = await tx.query<{ id: string }>(
        `WITH due AS (
           SELECT id FROM tasks
            WHERE overdue_at IS NULL AND due_at <= $1 AND status NOT IN ('completed', 'cancelled')
            ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED
         )
         UPDATE tasks t SET overdue_at = $1 FROM due WHERE t.id = due.id AND t.overdue_at IS NULL RETURNING t.id`,
        [now, batch],
      );
      if (flagged.length === 0) return 0;
      const { rows } = await tx.query<FlaggedTask>(
        `SELECT t.id, t.name, t.project_id, p.name AS project_name, t.tenant_id, t.environment, t.status, t.due_at, t.assignee_id,
                m.name AS assignee_name, m.phone_masked AS assignee_phone
           FROM tasks t JOIN projects p ON p.id = t.project_id
           LEFT JOIN project_members m ON m.project_id = t.project_id AND m.user_id = t.assignee_id
          WHERE t.id = ANY($1::text[]) ORDER BY t.due_at, t.id`,
        [flagged.map((r) => r.id)],
      );
      for (const t of rows) {
        await emit(tx, { tenantId: t.tenant_id, environment: t.environment }, 'task.overdue', now, {
          task_id: t.id,
          task_name: t.name,
          project_id: t.project_id,
          project_name: t.project_name,
          status: t.status,
          due_at: t.due_at,
          overdue_at: now,
          assignee: t.assignee_id ? { user_id: t.assignee_id, name: t.assignee_name ?? t.assignee_id, phone: t.assignee_phone ?? '' } : null,
        });
      }
      return rows.length;
    });
  }
}
