import type { Database } from '@mp/db';
import type { Logger } from '@mp/kit';
import { recordAttempts, type AttemptRecord, type DeliveryStatus } from './attempt.js';

interface Pending {
  record: AttemptRecord;
  /** After this the lease has lapsed and another claim may already be sending the delivery. */
  giveUpAt: number;
  resolve(status: DeliveryStatus | null): void;
  reject(err: unknown): void;
}

/**
 * Records finished attempts in batches: whatever finished while the previous statement ran goes
 * into the next one, so at a thousand attempts a second the database sees tens of statements, not
 * thousands of transactions. When the database is unreachable (a restart) the records wait and are
 * tried again, until the delivery's lease lapses; only then is the outcome given up, and the
 * delivery is attempted again after the lease (a duplicate, never a loss).
 */
export class AttemptRecorder {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private failures = 0;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly opts: { maxBatch?: number; retryMs?: number } = {},
  ) {}

  record(record: AttemptRecord, giveUpAt: number): Promise<DeliveryStatus | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, giveUpAt, resolve, reject });
      this.kick();
    });
  }

  /** Resolves once everything queued so far has been recorded or given up. */
  async idle(): Promise<void> {
    while (this.flushing || this.queue.length) await (this.flushing ?? new Promise((r) => setImmediate(r)));
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      if (this.queue.length) this.kick();
    });
  }

  private async flush(): Promise<void> {
    // Let the attempts finishing in this turn of the event loop join the batch.
    await new Promise((r) => setImmediate(r));
    const batch = this.queue.splice(0, this.opts.maxBatch ?? 500);
    if (batch.length === 0) return;
    try {
      const statuses = await recordAttempts(
        this.db,
        batch.map((p) => p.record),
      );
      this.failures = 0;
      batch.forEach((p, i) => p.resolve(statuses[i] ?? null));
    } catch (err) {
      this.failures++;
      const now = Date.now();
      const keep = batch.filter((p) => p.giveUpAt > now);
      for (const p of batch) if (p.giveUpAt <= now) p.reject(err);
      if (this.failures === 1 || this.failures % 20 === 0) {
        this.logger.warn({ err, waiting: keep.length + this.queue.length }, 'could not record delivery attempts; retrying');
      }
      this.queue.unshift(...keep);
      await new Promise((r) => setTimeout(r, Math.min((this.opts.retryMs ?? 250) * this.failures, 2000)));
    }
  }
}
