import { Worker } from 'node:worker_threads';

type Row = (string | number | null)[];

/** What the table thread is started with: which documents it makes, and the XLSX's fixed parts. */
export interface TableSetup {
  csv: boolean;
  /** The records' header (rows.ts recordHeader); RECORD_HEADER when absent. */
  header?: string[];
  xlsx: { mtime: number; summary: Row[] } | null;
}
export type TableMessage = { type: 'rows'; rows: Row[] } | { type: 'end' };
export type TableOutput = { format: 'csv' | 'xlsx'; chunk: Uint8Array } | { type: 'page' } | { type: 'done' };

/**
 * The heap of the table thread. It holds one page of rows (the reports party reads 2,000 records
 * per call) and what they encode to, the deflate window and the rows' strings: a few MiB. A bound
 * keeps a fault from growing into the whole process's memory; past it the thread ends with
 * ERR_WORKER_OUT_OF_MEMORY and the report fails, the process goes on (ADR 0093).
 */
export const TABLE_THREAD_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };

/**
 * The CSV and the XLSX of a report, encoded in a thread of their own (as the PDF is, pdf-thread.ts):
 * turning hundreds of thousands of records into text and deflating them held the process's own
 * thread for seconds, and with it every other request of the process (in embedded mode, every
 * tenant's). Rows go to the thread a page at a time; the bytes come back in order to `sinks`, as
 * the writers on this thread would have made them, so the same rows give the same bytes. One page
 * is in flight at a time: `addRows` resolves when the thread has encoded it.
 */
export class TableRenderer {
  private readonly worker: Worker;
  private waiting: { resolve: () => void; reject: (err: Error) => void } | null = null;
  private failure: Error | null = null;
  private finished = false;

  constructor(
    setup: TableSetup,
    sinks: { csv?: (chunk: Uint8Array) => void; xlsx?: (chunk: Uint8Array) => void },
    limits: { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } = TABLE_THREAD_LIMITS,
  ) {
    this.worker = new Worker(new URL('./table-worker.js', import.meta.url), { workerData: setup, resourceLimits: limits });
    this.worker.on('message', (message: TableOutput) => {
      if ('format' in message) sinks[message.format]?.(message.chunk);
      else {
        if (message.type === 'done') this.finished = true;
        this.settle();
      }
    });
    this.worker.once('error', (err) => this.fail(err));
    this.worker.once('exit', (code) => {
      if (!this.finished) this.fail(new Error(`the CSV/XLSX rendering thread ended (exit code ${code}) before the documents were complete`));
    });
  }

  /** Encodes a page of rows; resolves once the thread has posted their bytes. */
  addRows(rows: Row[]): Promise<void> {
    return this.send({ type: 'rows', rows });
  }

  /** Finishes the documents (the XLSX's closing parts); the thread ends after. */
  async end(): Promise<void> {
    await this.send({ type: 'end' });
    await this.worker.terminate();
  }

  /** Stops the thread at once (the generation was abandoned: a lost lease, a failed read). */
  abort(): Promise<number> {
    this.finished = true;
    return this.worker.terminate();
  }

  private send(message: TableMessage): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.postMessage(message);
    });
  }

  private settle(): void {
    const w = this.waiting;
    this.waiting = null;
    w?.resolve();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiting;
    this.waiting = null;
    w?.reject(this.failure);
  }
}
