import { parentPort, workerData } from 'node:worker_threads';
import { csvHeader, csvLines } from './csv.js';
import type { TableMessage, TableOutput, TableSetup } from './table-thread.js';
import { XlsxWriter } from './xlsx.js';

// The thread of TableRenderer (table-thread.ts): encodes each page of record rows it is sent as
// CSV lines and XLSX rows (XML, deflated), posts the bytes back in order, then `page`; `end`
// finishes the workbook and answers `done`. An error ends the thread with it.
const setup = workerData as TableSetup;
const port = parentPort!;
const enc = new TextEncoder();
const post = (message: TableOutput) => port.postMessage(message);

const xlsx = setup.xlsx ? new XlsxWriter((chunk) => post({ format: 'xlsx', chunk }), new Date(setup.xlsx.mtime), setup.header) : null;
xlsx?.summary(setup.xlsx!.summary);
if (setup.csv) post({ format: 'csv', chunk: enc.encode(csvHeader(setup.header)) });

port.on('message', (message: TableMessage) => {
  if (message.type === 'rows') {
    if (setup.csv) post({ format: 'csv', chunk: enc.encode(csvLines(message.rows)) });
    xlsx?.addRecords(message.rows);
    post({ type: 'page' });
  } else {
    const finished = xlsx ? xlsx.end() : Promise.resolve();
    void finished.then(() => post({ type: 'done' }));
  }
});
