import type { Logger } from '@mp/kit';

/**
 * The loop every leased background worker of this service runs (batches, recomputations, logger
 * file imports): take one piece of work and do it; when there was none, wait `pollMs`, or less
 * when `wake()` says new work was handed in; `stop()` ends the wait at once and resolves when
 * the piece in hand is done. A failure is logged and the loop goes on (the work's lease lets
 * this or another replica take it again).
 */
export abstract class PollingWorker {
  protected stopped = true;
  private running: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private pending = false;

  constructor(
    protected readonly pollMs: number,
    private readonly log: { logger: Logger; failure: string },
  ) {}

  /** Takes and does one piece of work; false when there was none. */
  protected abstract step(): Promise<boolean>;

  start(): void {
    this.stopped = false;
    this.running = this.loop();
  }

  wake(): void {
    this.pending = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.running;
  }

  /** Waits `ms`, or until wake() or stop(). */
  protected sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.pending = false;
      let worked = false;
      try {
        worked = await this.step();
      } catch (err) {
        this.log.logger.warn({ err }, this.log.failure);
      }
      if (!worked && !this.pending && !this.stopped) await this.sleep(this.pollMs);
    }
  }
}
