import type { projects } from '@mp/contracts';
import type { Bounds } from './bounds.js';

export interface ProjectRow {
  id: string;
  tenant_id: string;
  environment: string;
  number: string;
  name: string;
  description: string | null;
  status: string;
  start_date: string | null;
  end_date: string | null;
  bounds: Bounds | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  time_zone: string;
  /** bigint: a string from pg, a number from PGlite (ADR 0022). */
  ingest_version: string | number;
}

export const PROJECT_COLUMNS =
  'id, tenant_id, environment, number, name, description, status, start_date, end_date, bounds, created_by, created_at, updated_at, version, ingest_version, time_zone';

/** Dates come back as 'YYYY-MM-DD' from pg and as a Date (normalised to an ISO instant) from PGlite. */
export const dateOnly = (v: string | null): string | null => (v === null ? null : v.slice(0, 10));

export function toProject(row: ProjectRow): projects.Project {
  const startDate = dateOnly(row.start_date);
  const endDate = dateOnly(row.end_date);
  return {
    id: row.id,
    number: row.number,
    name: row.name,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    timeZone: row.time_zone,
    ...(row.description !== null ? { description: row.description } : {}),
    ...(startDate !== null ? { startDate } : {}),
    ...(endDate !== null ? { endDate } : {}),
    ...(row.bounds ? { bounds: toBoundsMessage(row.bounds) } : {}),
    ...(row.created_by ? { createdBy: row.created_by } : {}),
  };
}

export function toBoundsMessage(b: Bounds): projects.Bounds {
  return { minX: b.min_x, maxX: b.max_x, minY: b.min_y, maxY: b.max_y, minZ: b.min_z, maxZ: b.max_z };
}
