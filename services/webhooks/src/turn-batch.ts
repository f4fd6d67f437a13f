interface Waiting<I, O> {
  item: I;
  resolve(out: O): void;
  reject(err: unknown): void;
}

/**
 * Gathers the items handed in while a batch is being handled, and those of the same turn of the
 * event loop, into the next batch: one statement for many where one each would pay a round trip
 * (or a commit) per item. `handle` answers a batch with one output per item, in order; when it
 * throws, every item of that batch is refused with the error.
 */
export class TurnBatch<I, O> {
  private queue: Waiting<I, O>[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly handle: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    // Let the callers of this turn of the event loop join the batch.
    await new Promise((r) => setImmediate(r));
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const out = await this.handle(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(out[i]!));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.flushing = null;
  }
}
