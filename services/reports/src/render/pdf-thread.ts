import { Worker } from 'node:worker_threads';
import type { ReportData } from '../gather.js';

/**
 * renderPdf in a thread of its own: laying out pages, drawing the plots and compressing them take
 * the CPU for as long as the document is long, and on the process's own thread they held up every
 * other request of it (in embedded mode, the whole API). The data go to the thread as a copy; the
 * bytes come back in order, as renderPdf gives them, to `sink`.
 */
export function renderPdfOffThread(data: ReportData, status: string, sink: (chunk: Uint8Array) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./pdf-worker.js', import.meta.url), { workerData: { data, status } });
    let done = false;
    worker.on('message', (message: Uint8Array | 'done') => {
      if (message === 'done') {
        done = true;
        void worker.terminate();
        resolve();
      } else sink(message);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`the PDF rendering thread ended (exit code ${code}) before the document was complete`));
    });
  });
}
