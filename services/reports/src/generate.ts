import { DomainError } from '@mp/errors';
import type { ReportsDeps } from './deps.js';
import { emitReportEvent } from './events.js';
import { gatherReport, periodRecords, reportChannels, type ReportData } from './gather.js';
import { PartWriter } from './file-store.js';
import { localTime, mm } from './render/format.js';
import { renderPdfOffThread } from './render/pdf-thread.js';
import { recordHeader, recordRow } from './render/rows.js';
import { TableRenderer } from './render/table-thread.js';
import { REPORT_COLUMNS, type FileRow, type ReportRow } from './report-row.js';
import { contextFor } from './sources.js';

/** The status the documents show: they are made before anyone reviewed them. */
export const DOCUMENT_STATUS = 'generated, awaiting approval';

/** Raised when the lease of the attempt was lost (another process holds the report now). */
export class LeaseLost extends Error {}

/**
 * Renders every document of a claimed report (attempt `attempt`) into its parts, then finishes it
 * in one transaction: file rows, status `generated`, report.generated, and the parts of earlier
 * attempts removed; but only if this attempt still holds the report (ADR 0026).
 */
export async function generateDocuments(deps: ReportsDeps, row: ReportRow, attempt: number, stillHeld: () => boolean): Promise<void> {
  const ctx = contextFor(row.requester, row.id);
  const data = await gatherReport(deps.sources, ctx, row, deps.db);
  const check = () => {
    if (!stillHeld()) throw new LeaseLost(`Report ${row.id}: attempt ${attempt} lost its lease.`);
  };
  check();
  const formats = row.template.formats;
  const files: Omit<FileRow, 'report_id'>[] = [];
  let recordCount = 0;

  if (formats.includes('pdf')) {
    const pdf = new PartWriter(deps.db, row.id, attempt, 'pdf');
    let pending: Promise<void> = Promise.resolve();
    await renderPdfOffThread(data, DOCUMENT_STATUS, (chunk) => {
      pending = pdf.write(chunk);
    });
    await pending;
    files.push(await pdf.close());
    check();
  }

  const csv = formats.includes('csv') ? new PartWriter(deps.db, row.id, attempt, 'csv') : null;
  const xlsxParts = formats.includes('xlsx') ? new PartWriter(deps.db, row.id, attempt, 'xlsx') : null;
  if (csv || xlsxParts) {
    // Both documents are encoded in one thread of their own (table-thread.ts); the parts are
    // stored from here, and the next page is read only once this one is encoded and stored.
    let csvPending: Promise<void> = Promise.resolve();
    let xlsxPending: Promise<void> = Promise.resolve();
    // a column per channel of the report's instrument points, after the fixed ones (none without)
    const channels = reportChannels(data.points.map((p) => p.point));
    const tables = new TableRenderer(
      {
        csv: csv !== null,
        ...(channels.length ? { header: recordHeader(channels) } : {}),
        xlsx: xlsxParts ? { mtime: new Date(row.created_at).getTime(), summary: summaryRows(data) } : null,
      },
      {
        ...(csv ? { csv: (chunk: Uint8Array) => (csvPending = csv.write(chunk)) } : {}),
        ...(xlsxParts ? { xlsx: (chunk: Uint8Array) => (xlsxPending = xlsxParts.write(chunk)) } : {}),
      },
    );
    try {
      const points = new Map(data.points.map((p) => [p.point.id, p.point]));
      const only = row.template.point_ids.length ? new Set(points.keys()) : null;
      for await (const page of periodRecords(deps.sources, ctx, row, only)) {
        const rows = page.map((r) => recordRow(r, points, channels));
        recordCount += rows.length;
        await tables.addRows(rows);
        await Promise.all([csvPending, xlsxPending]);
        check();
      }
      await tables.end();
      await Promise.all([csvPending, xlsxPending]);
    } catch (err) {
      await tables.abort();
      throw err;
    }
    if (csv) files.push(await csv.close());
    if (xlsxParts) files.push(await xlsxParts.close());
  } else {
    recordCount = data.points.reduce((n, p) => n + p.count, 0);
  }
  await finishReport(deps, row.id, attempt, files, data.dataAsOf, recordCount);
}

async function finishReport(
  deps: ReportsDeps,
  id: string,
  attempt: number,
  files: Omit<FileRow, 'report_id'>[],
  dataAsOf: string | null,
  recordCount: number,
): Promise<void> {
  const finished = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<ReportRow>(`SELECT ${REPORT_COLUMNS} FROM reports WHERE id = $1 FOR UPDATE`, [id]);
    const row = rows[0];
    if (!row || row.status !== 'generating' || row.attempt !== attempt) return false;
    const now = deps.clock.now().toISOString();
    const stored: FileRow[] = files.map((f) => ({ ...f, report_id: id }));
    for (const f of stored) {
      await tx.query('INSERT INTO report_files (report_id, format, attempt, size_bytes, sha256, part_size) VALUES ($1, $2, $3, $4, $5, $6)', [
        id,
        f.format,
        f.attempt,
        f.size_bytes,
        f.sha256,
        f.part_size,
      ]);
    }
    await tx.query('DELETE FROM report_file_parts WHERE report_id = $1 AND attempt <> $2', [id, attempt]);
    await tx.query(
      `UPDATE reports SET status = 'generated', generated_at = $2, data_as_of = $3, record_count = $4, lease_until = NULL, updated_at = $2 WHERE id = $1`,
      [id, now, dataAsOf, recordCount],
    );
    const next: ReportRow = { ...row, status: 'generated', generated_at: now, data_as_of: dataAsOf, record_count: recordCount };
    await emitReportEvent(tx, 'report.generated', next, stored, now);
    return true;
  });
  if (!finished) throw new LeaseLost(`Report ${id}: attempt ${attempt} was overtaken before it finished.`);
  deps.relay.kick();
}

/** Marks the report failed (only while this attempt holds it), removing every part it has. */
export async function failReport(deps: ReportsDeps, id: string, attempt: number, err: DomainError): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE reports SET status = 'failed', failure_code = $3, failure_detail = $4, lease_until = NULL, updated_at = now()
        WHERE id = $1 AND attempt = $2 AND status = 'generating'`,
      [id, attempt, err.code, err.detail ?? err.entry.message],
    );
    if (rowCount) await tx.query('DELETE FROM report_file_parts WHERE report_id = $1', [id]);
  });
}

/** The XLSX summary sheet: the report's facts, then per point and axis the statistics of the PDF. */
function summaryRows(d: ReportData): (string | number | null)[][] {
  const when = (iso: string | null) => (iso ? localTime(iso, d.timeZone) : '');
  const rows: (string | number | null)[][] = [
    ['Report', d.title],
    ['Report id', d.id],
    ['Project', `${d.project.name} (${d.project.number})`],
    ['Period from', when(d.from)],
    ['Period to', when(d.to)],
    ['Time zone', d.timeZone],
    ['Generated at', when(d.requestedAt)],
    ['Data as of', when(d.dataAsOf)],
    ['Template', d.templateName],
    [],
    [
      'point_id',
      'point_number',
      'point_name',
      'axis',
      'count',
      'min_mm',
      'max_mm',
      'mean_mm',
      'last_mm',
      'rate_mm_per_day',
      'warning_mm',
      'alarm_mm',
      'latest_measured_at',
      'latest_status',
    ],
  ];
  // With instrument points, the statistics are in each row's own unit (a last `unit` column) and
  // the headers drop `_mm`; a report of geodetic points only keeps exactly the columns above.
  const instruments = d.points.some((p) => p.point.channel);
  if (instruments) rows[rows.length - 1] = [...rows[rows.length - 1]!.map((h) => String(h).replace(/_mm(?=_|$)/, '')), 'unit'];
  for (const p of d.points) {
    const ch = p.point.channel;
    if (ch) {
      const s = p.channelStats;
      rows.push([
        p.point.id,
        p.point.number,
        p.point.name,
        ch.name,
        s ? p.count : 0,
        s ? Number(mm(s.min)) : null,
        s ? Number(mm(s.max)) : null,
        s ? Number(mm(s.mean)) : null,
        s?.last ?? null,
        s?.ratePerDay !== null && s?.ratePerDay !== undefined ? Number(mm(s.ratePerDay, 4)) : null,
        null,
        null,
        p.latest?.measuredAt ?? null,
        p.latest?.status ?? null,
        ch.unit,
      ]);
      continue;
    }
    for (const axis of ['dx', 'dy', 'dz'] as const) {
      const s = p.stats[axis];
      rows.push([
        p.point.id,
        p.point.number,
        p.point.name,
        axis,
        s ? p.count : 0,
        s ? Number(mm(s.min)) : null,
        s ? Number(mm(s.max)) : null,
        s ? Number(mm(s.mean)) : null,
        s?.last ?? null,
        s?.ratePerDay !== null && s?.ratePerDay !== undefined ? Number(mm(s.ratePerDay, 4)) : null,
        p.point.warning,
        p.point.alarm,
        p.latest?.measuredAt ?? null,
        p.latest?.status ?? null,
        ...(instruments ? ['mm'] : []),
      ]);
    }
  }
  return rows;
}
