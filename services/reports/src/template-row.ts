import type { reports } from '@mp/contracts';
import type { Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { requireId, type Format } from './validation.js';

export interface TemplateRow {
  id: string;
  name: string;
  description: string | null;
  sections: string[];
  point_ids: string[];
  formats: Format[];
  created_by: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  /** null: the reports show the project's time zone */
  time_zone: string | null;
}

export const TEMPLATE_COLUMNS = 'id, name, description, sections, point_ids, formats, created_by, created_at, updated_at, version, time_zone';

export function toTemplate(r: TemplateRow): reports.Template {
  return {
    id: r.id,
    name: r.name,
    ...(r.description !== null ? { description: r.description } : {}),
    sections: r.sections,
    pointIds: r.point_ids,
    formats: r.formats,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    version: r.version,
    ...(r.created_by ? { createdBy: r.created_by } : {}),
    ...(r.time_zone ? { timeZone: r.time_zone } : {}),
  };
}

/** A template of the caller's tenant and environment; any other is reported missing (404006). */
export async function loadTemplate(q: Queryable, id: string, ctx: CallerContext, field = 'template_id', forUpdate = false): Promise<TemplateRow> {
  requireId('template', id, field);
  const { rows } = await q.query<TemplateRow>(
    `SELECT ${TEMPLATE_COLUMNS} FROM templates WHERE id = $1 AND tenant_id = $2 AND environment = $3 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [id, ctx.tenantId, ctx.environment],
  );
  if (!rows[0])
    throw new DomainError('404006', {
      field,
      detail: `Template ${id} does not exist.`,
      suggestion: 'List templates with GET /v3/templates and use an id from that list.',
    });
  return rows[0];
}

export function checkVersion(current: number, expected: number | undefined): void {
  if (expected !== undefined && expected !== current) {
    throw new DomainError('409004', {
      field: 'version',
      detail: `The template is at version ${current}, not ${expected}.`,
      suggestion: 'Read the template again and send its current version.',
    });
  }
}
