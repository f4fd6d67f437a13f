import { createHash } from 'node:crypto';
import { bufferOf, type Database } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { reports } from '@mp/contracts';
import { loadReadableReport } from './access.js';
import type { ReportsDeps } from './deps.js';
import type { FileRow } from './report-row.js';
import type { Format } from './validation.js';

/** Bytes per stored part: small enough to write as rendering goes, large enough to be few rows. */
export const PART_SIZE = 1024 * 1024;
/** The most one ReadReportFile answers (well under the 16 MiB gRPC message limit). */
export const MAX_CHUNK = 4 * 1024 * 1024;

export const CONTENT_TYPES: Record<Format, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/**
 * A document being written: bytes are gathered into parts of PART_SIZE and each full part is
 * stored at once (rows of the attempt that renders it), so memory holds at most one part; the
 * sha256 and size are taken on the way.
 */
export class PartWriter {
  private readonly hash = createHash('sha256');
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private part = 0;
  private size = 0;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly reportId: string,
    private readonly attempt: number,
    readonly format: Format,
  ) {}

  /** Adds bytes; resolves once any full part they completed is stored (back-pressure for the renderer). */
  write(chunk: Uint8Array): Promise<void> {
    const b = bufferOf(chunk);
    this.hash.update(b);
    this.size += b.length;
    this.buffered.push(b);
    this.bufferedBytes += b.length;
    while (this.bufferedBytes >= PART_SIZE) {
      const all = Buffer.concat(this.buffered, this.bufferedBytes);
      this.store(all.subarray(0, PART_SIZE));
      const rest = all.subarray(PART_SIZE);
      this.buffered = rest.length ? [Buffer.from(rest)] : [];
      this.bufferedBytes = rest.length;
    }
    return this.pending;
  }

  private store(bytes: Buffer): void {
    const part = this.part++;
    const copy = Buffer.from(bytes);
    this.pending = this.pending.then(async () => {
      await this.db.query('INSERT INTO report_file_parts (report_id, attempt, format, part, bytes) VALUES ($1, $2, $3, $4, $5)', [
        this.reportId,
        this.attempt,
        this.format,
        part,
        copy,
      ]);
    });
  }

  /** Stores the last part; the file row is written when the report is finished (finishReport). */
  async close(): Promise<Omit<FileRow, 'report_id'>> {
    if (this.bufferedBytes > 0 || this.part === 0) this.store(Buffer.concat(this.buffered, this.bufferedBytes));
    this.buffered = [];
    await this.pending;
    return { format: this.format, attempt: this.attempt, size_bytes: this.size, sha256: this.hash.digest('hex'), part_size: PART_SIZE };
  }
}

/** A stored document's file row (size, hash, the attempt whose parts hold it); none before generation. */
async function fileRow(db: Database, reportId: string, format: Format): Promise<FileRow | undefined> {
  const { rows } = await db.query<FileRow>(
    'SELECT report_id, format, attempt, size_bytes, sha256, part_size FROM report_files WHERE report_id = $1 AND format = $2',
    [reportId, format],
  );
  return rows[0];
}

/**
 * GET /reports/{id}/file: a piece [offset, offset + length) of one of the report's documents. Every
 * piece checks the caller's access to the report's project again, so a member removed while a
 * large document is being sent stops receiving it at the next piece.
 */
export async function readReportFile(deps: ReportsDeps, req: reports.ReadFileRequest, ctx: CallerContext): Promise<reports.FileChunk> {
  const db = deps.db;
  const report = await loadReadableReport(deps, req.reportId, ctx);
  const formats = report.template.formats;
  if (!(formats as string[]).includes(req.format)) {
    throw new DomainError('400001', {
      field: 'format',
      detail: `This report has no ${req.format || 'such'} document; its template makes ${formats.join(', ')}.`,
      suggestion: `Ask for format=${formats[0]}.`,
    });
  }
  const file = await fileRow(db, report.id, req.format as Format);
  if (!file) {
    throw new DomainError('409011', {
      field: 'status',
      detail: `Report ${report.id} is ${report.status}; it has no documents${report.status === 'generating' ? ' yet' : ''}.`,
      suggestion:
        report.status === 'generating' ? 'Wait for report.generated (or poll GET /reports/{report_id}), then download.' : 'Generate the report again.',
    });
  }
  const size = Number(file.size_bytes);
  const offset = Math.max(0, Math.min(Number(req.offset), size));
  const length = Math.max(0, Math.min(req.length || MAX_CHUNK, MAX_CHUNK, size - offset));
  const first = Math.floor(offset / file.part_size);
  const last = length ? Math.floor((offset + length - 1) / file.part_size) : first - 1;
  const parts =
    last >= first
      ? (
          await db.query<{ part: number; bytes: Uint8Array }>(
            'SELECT part, bytes FROM report_file_parts WHERE report_id = $1 AND attempt = $2 AND format = $3 AND part BETWEEN $4 AND $5 ORDER BY part',
            [report.id, file.attempt, file.format, first, last],
          )
        ).rows
      : [];
  const joined = Buffer.concat(parts.map((p) => bufferOf(p.bytes)));
  const start = offset - first * file.part_size;
  return {
    data: joined.subarray(start, start + length),
    sizeBytes: size,
    sha256: file.sha256,
    contentType: CONTENT_TYPES[file.format],
    fileName: `${report.id}.${file.format}`,
  };
}

/**
 * A generated document whole, for a mail attachment: null when the report has no such document or
 * it is larger than `maxBytes` (its size is read first, its parts only when it fits).
 */
export async function readStoredDocument(db: Database, reportId: string, format: Format, maxBytes: number): Promise<Buffer | null> {
  const file = await fileRow(db, reportId, format);
  if (!file || Number(file.size_bytes) > maxBytes) return null;
  const parts = await db.query<{ bytes: Uint8Array }>(
    'SELECT bytes FROM report_file_parts WHERE report_id = $1 AND attempt = $2 AND format = $3 ORDER BY part',
    [reportId, file.attempt, format],
  );
  return Buffer.concat(parts.rows.map((p) => bufferOf(p.bytes)));
}
