import { REPORT_FORMATS, REPORT_SECTIONS } from '@mp/contracts';
import { DomainError, excerpt } from '@mp/errors';
import { isId } from '@mp/kit';

export const SECTIONS = REPORT_SECTIONS;
export const FORMATS = REPORT_FORMATS;
export type Format = (typeof FORMATS)[number];
export const DEFAULT_FORMATS: Format[] = ['pdf', 'csv'];
/** Points a template may name (a project's points are listed whole when it names none). */
export const MAX_TEMPLATE_POINTS = 500;
/** The longest period one report covers: a year and a day (leap years, time zones). */
export const MAX_PERIOD_MS = 367 * 86_400_000;

export function checkText(value: string, field: string, min: number, max: number): string {
  const t = value.trim();
  if (t.length < min || t.length > max) {
    throw new DomainError('400003', {
      field,
      detail: `${field} must be ${min} to ${max} characters long.`,
      suggestion: `Send a ${field} of ${min} to ${max} characters.`,
    });
  }
  return t;
}

function checkList<T extends string>(values: string[], allowed: readonly T[], field: string, fallback: T[] | null): T[] {
  if (values.length === 0) {
    if (fallback) return fallback;
    throw new DomainError('422101', {
      field,
      detail: `${field} must list at least one of: ${allowed.join(', ')}.`,
      suggestion: `Send ${field} as e.g. ["${allowed[0]}"].`,
    });
  }
  values.forEach((v, i) => {
    if (!(allowed as readonly string[]).includes(v)) {
      throw new DomainError('422103', {
        field: `${field}[${i}]`,
        detail: `${excerpt(v)} is not one of ${allowed.join(', ')}.`,
        suggestion: `Use only ${allowed.join(', ')}.`,
      });
    }
  });
  return [...new Set(values)] as T[];
}

export const checkSections = (values: string[]) => checkList(values, SECTIONS, 'sections', null);
export const checkFormats = (values: string[]) => checkList(values, FORMATS, 'formats', DEFAULT_FORMATS);

export function checkPointIds(values: string[]): string[] {
  if (values.length > MAX_TEMPLATE_POINTS) {
    throw new DomainError('400003', {
      field: 'point_ids',
      detail: `point_ids lists at most ${MAX_TEMPLATE_POINTS} points.`,
      suggestion: 'Leave point_ids out to include every point of the project.',
    });
  }
  values.forEach((v, i) => {
    if (!isId('point', v))
      throw new DomainError('400004', {
        field: `point_ids[${i}]`,
        detail: `${excerpt(v)} is not a point id (pt_…).`,
        suggestion: 'Use ids returned by GET /projects/{project_id}/points.',
      });
  });
  return [...new Set(values)];
}

export function requireId(kind: 'report' | 'template' | 'project' | 'reportSchedule', value: string, field: string): string {
  if (!isId(kind, value)) {
    const prefix = { report: 'rpt', template: 'tpl', project: 'prj', reportSchedule: 'rsc' }[kind];
    const noun = kind === 'reportSchedule' ? 'report schedule' : kind;
    throw new DomainError('400004', {
      field,
      detail: `${field} is not a ${noun} id (${prefix}_…).`,
      suggestion: `Use the id returned when the ${noun} was created.`,
    });
  }
  return value;
}

/** An ISO 8601 instant with a UTC offset (as every time of the API). */
export function checkInstant(value: string, field: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new DomainError('400004', {
      field,
      detail: `${field} must be an ISO 8601 time with a UTC offset.`,
      suggestion: `Send e.g. ${field}=2026-01-01T00:00:00Z.`,
    });
  }
  return ms;
}

export function checkPeriod(from: string, to: string): { from: number; to: number } {
  const f = checkInstant(from, 'from');
  const t = checkInstant(to, 'to');
  if (t <= f)
    throw new DomainError('422204', { field: 'to', detail: 'to must be after from.', suggestion: 'Send a period [from, to) with to later than from.' });
  if (t - f > MAX_PERIOD_MS) {
    throw new DomainError('400003', { field: 'to', detail: 'A report covers at most 367 days.', suggestion: 'Split a longer period into several reports.' });
  }
  return { from: f, to: t };
}
