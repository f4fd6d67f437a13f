import { pipeline, Readable } from 'node:stream';
import { parse } from 'csv-parse';
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
 * The records of a CSV or TOA5 file, streamed through csv-parse: never more than a chunk and the
 * parser's current record are held. Rows may have fewer or more cells than the header (a cell that
 * is missing reads as empty). A byte-order mark is dropped; empty lines are skipped.
 */
export function fileRows(source: AsyncIterable<Buffer>, delimiter: string): AsyncIterable<FileRow> {
  const parser = parse({ delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, info: true, trim: false });
  // pipeline: an error of the source (a chunk missing) ends the parser with it, so the loop below throws.
  pipeline(Readable.from(source), parser, () => undefined);
  return (async function* () {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { line: item.info.lines, cells: item.record };
    }
  })();
}
