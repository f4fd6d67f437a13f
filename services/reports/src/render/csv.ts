import { RECORD_HEADER } from './rows.js';

/**
 * A CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. Text a spreadsheet
 * would run as a formula (=, +, -, @ first) gets a leading apostrophe: point names come from
 * users, and a report is opened by people who did not write them.
 */
function cell(v: string | number | null): string {
  if (v === null) return '';
  if (typeof v === 'number') return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvHeader = (): string => `${RECORD_HEADER.join(',')}\r\n`;

export const csvLines = (rows: (string | number | null)[][]): string => rows.map((r) => `${r.map(cell).join(',')}\r\n`).join('');
