import { pipeline, Readable } from 'node:stream';
import { Parser, type Options } from 'csv-parse';
import type { Database } from '@mp/db';

/** One record of the file: its cells, and the line it ends on (1 = the file's first line). */
export interface FileRow {
  line: number;
  cells: string[];
}

/** The file's bytes, chunk by chunk in order, read from PostgreSQL one chunk at a time. */
export async function* storedChunks(db: Database, importId: string, count: number): AsyncGenerator<Buffer> {
  for (let seq = 0; seq < count; seq++) {
    const { rows } = await db.query<{ data: Buffer | Uint8Array }>('SELECT data FROM import_chunks WHERE import_id = $1 AND seq = $2', [importId, seq]);
    const data = rows[0]?.data;
    if (!data) throw new Error(`import ${importId} lacks chunk ${seq}`);
    yield Buffer.isBuffer(data) ? data : Buffer.from(data);
  }
}

/**
 * csv-parse's parser, each record tagged with the line it ends on. The parser's `info: true`
 * builds a dozen-field object per record by spreading two others (a quarter of the reading's CPU
 * in a profile of a 1,000,000-row file); the parser's live `info.lines` at the moment the record
 * is pushed is the same number, for the price of one small object.
 */
class LineParser extends Parser {
  override push(record: unknown, encoding?: BufferEncoding): boolean {
    if (record === null) return super.push(null, encoding);
    return super.push({ line: this.info.lines, cells: record as string[] } satisfies FileRow, encoding);
  }
}

/**
 * The records of a CSV or TOA5 file, streamed through csv-parse, handed over in runs of the rows
 * already parsed (one await per run, not per row): never more than a stored chunk's rows and the
 * parser's current record are held. Rows may have fewer or more cells than the header (a cell
 * that is missing reads as empty). A byte-order mark is dropped; empty lines are skipped.
 */
export async function* fileRows(source: AsyncIterable<Buffer>, delimiter: string): AsyncGenerator<FileRow[]> {
  const options: Options = { delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: false };
  const parser = new LineParser(options);
  // pipeline: an error of the source (a chunk missing) ends the parser with it, so the loop below throws.
  pipeline(Readable.from(source), parser, () => undefined);
  for (;;) {
    const run: FileRow[] = [];
    for (let row = parser.read() as FileRow | null; row !== null; row = parser.read() as FileRow | null) run.push(row);
    if (run.length) {
      yield run;
      continue;
    }
    if (parser.errored) throw parser.errored;
    if (parser.readableEnded) return;
    if (parser.destroyed) throw new Error('the file stream closed before its end');
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        parser.off('readable', done).off('end', done).off('close', done).off('error', fail);
        resolve();
      };
      const fail = (err: Error) => {
        done();
        reject(err);
      };
      parser.once('readable', done).once('end', done).once('close', done).once('error', fail);
    });
  }
}
