import type { Database } from '@mp/db';
import type { Logger } from '@mp/kit';
import { countRejectedRollups } from './metrics.js';
import { foldPointByPoint, foldRollups } from './rollups.js';

/**
 * Folds rollup deltas (rollups.ts) every `everyMs`, at once again while a round found a full load,
 * so a series reads about one row per bucket however many writes touched it. Every replica runs
 * one; a round another replica is running is skipped. 0 turns it off (tests that fold by hand).
 */
export class RollupFolder {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly everyMs = 1000,
    private readonly limit = 50_000,
  ) {}

  start(): void {
    if (this.everyMs > 0) this.schedule(this.everyMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.running = this.round().finally(() => {
        this.running = null;
      });
    }, ms);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    let full = false;
    try {
      const { folded, foldedChannels } = await foldRollups(this.db, this.limit);
      full = folded === this.limit || foldedChannels === this.limit;
    } catch (err) {
      // One point's bad deltas must not stop every point's folding: fold point by point, setting
      // aside what still fails.
      this.logger.warn({ err }, 'folding rollups failed; folding point by point');
      try {
        const { rejected } = await foldPointByPoint(this.db, this.limit);
        for (const r of rejected)
          this.logger.error({ point_id: r.pointId, error: r.error }, 'rollup deltas of a point could not be folded; set aside in data_rollup_rejects');
        countRejectedRollups(rejected.length);
      } catch (again) {
        this.logger.warn({ err: again }, 'folding rollups point by point failed; will retry');
      }
    }
    if (this.timer) this.schedule(full ? 0 : this.everyMs);
  }
}
