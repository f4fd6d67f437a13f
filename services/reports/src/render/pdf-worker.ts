import { parentPort, workerData } from 'node:worker_threads';
import type { ReportData } from '../gather.js';
import { renderPdf } from './pdf.js';

// The thread of renderPdfOffThread (pdf-thread.ts): renders the PDF it was given and posts its
// bytes back as they come, then `done`; an error ends the thread with it.
const { data, status } = workerData as { data: ReportData; status: string };
await renderPdf(data, status, (chunk) => parentPort!.postMessage(chunk));
parentPort!.postMessage('done');
