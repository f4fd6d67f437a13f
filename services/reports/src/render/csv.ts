import { RECORD_HEADER } from './rows.js';

/**
 * Where a spreadsheet could begin a cell: the start of the field, and after any character some
 * spreadsheet splits fields or lines on (a file opened with `;` or tab as its separator splits
 * inside our comma-separated fields, and quotes that begin mid-field do not protect there).
 */
const CELL_STARTS = /(?<=^|[,;\t\r\n])(?=[ "]*[=+\-@\t\r])/g;

/**
 * Text as a CSV cell (RFC 4180), never readable as a formula (docs/security.md): every place a
 * spreadsheet could begin a cell that would start with =, +, -, @, tab or CR (after spaces or
 * quotes too) gets a single quote first, so it is read as text; then the field is quoted when it
 * holds a separator of any common kind, a quote or a line break. Point names and numbers come from
 * users, and a report is opened by people who did not write them.
 */
export function csvText(v: string): string {
  const safe = v.replace(CELL_STARTS, "'");
  return /[",;\t\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * A cell: numbers (the value columns) stay numbers, negative ones too, since a finite number
 * written by us is digits, a sign, a point and an exponent and cannot run anything; anything else
 * is text.
 */
function cell(v: string | number | null): string {
  if (v === null) return '';
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return csvText(String(v));
}

export const csvHeader = (header: readonly string[] = RECORD_HEADER): string => `${header.map(csvText).join(',')}\r\n`;

export const csvLines = (rows: (string | number | null)[][]): string => rows.map((r) => `${r.map(cell).join(',')}\r\n`).join('');
