import type { reports } from '@mp/contracts';
import { createOnce, type Queryable } from '@mp/db';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { checkTimeZone, ListQuery, newId } from '@mp/kit';
import type { ReportsDeps } from '../deps.js';
import { checkVersion, loadTemplate, TEMPLATE_COLUMNS, toTemplate, type TemplateRow } from '../template-row.js';
import { checkFormats, checkPointIds, checkSections, checkText } from '../validation.js';

/** Templates a tenant may hold per environment; more is refused with 422105. */
export const MAX_TEMPLATES = 200;

/** POST /templates (report:write). */
export async function createTemplate(deps: ReportsDeps, req: reports.CreateTemplateRequest, ctx: CallerContext): Promise<reports.Template> {
  const name = checkText(req.name, 'name', 1, 100);
  const description = req.description !== undefined ? checkText(req.description, 'description', 0, 2000) : null;
  const sections = checkSections(req.sections);
  const pointIds = checkPointIds(req.pointIds);
  const formats = checkFormats(req.formats);
  const timeZone = req.timeZone !== undefined ? checkTimeZone(req.timeZone) : null;
  const insert = async (tx: Queryable) => {
    const { rows: count } = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM templates WHERE tenant_id = $1 AND environment = $2 AND deleted_at IS NULL',
      [ctx.tenantId, ctx.environment],
    );
    if ((count[0]?.n ?? 0) >= MAX_TEMPLATES) {
      throw new DomainError('422105', {
        field: null,
        detail: `A tenant can hold at most ${MAX_TEMPLATES} templates per environment.`,
        suggestion: 'Delete templates you no longer use.',
      });
    }
    const now = deps.clock.now().toISOString();
    const { rows } = await tx.query<TemplateRow>(
      `INSERT INTO templates (id, tenant_id, environment, name, description, sections, point_ids, formats, created_by, created_at, updated_at, time_zone)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11) RETURNING ${TEMPLATE_COLUMNS}`,
      [newId('template'), ctx.tenantId, ctx.environment, name, description || null, sections, pointIds, formats, ctx.principalId || null, now, timeZone],
    );
    return toTemplate(rows[0]!);
  };
  return createOnce(deps.db, deps.clock.now(), ctx, 'CreateTemplate', req, insert);
}

export async function getTemplate(deps: ReportsDeps, req: reports.Ref, ctx: CallerContext): Promise<reports.Template> {
  return toTemplate(await loadTemplate(deps.db, req.id, ctx));
}

export async function listTemplates(deps: ReportsDeps, req: reports.ListTemplatesRequest, ctx: CallerContext): Promise<reports.TemplateList> {
  const q = new ListQuery(req.page);
  q.and(`tenant_id = ${q.param(ctx.tenantId)}`)
    .and(`environment = ${q.param(ctx.environment)}`)
    .and('deleted_at IS NULL');
  const { rows } = await deps.db.query<TemplateRow>(q.sql(`SELECT ${TEMPLATE_COLUMNS} FROM templates`), q.params);
  return q.result(rows, toTemplate);
}

const CLEARABLE = ['description', 'point_ids', 'time_zone'];

/** PATCH /templates/{id}: only the fields sent; 409004 on a stale version. Reports already asked for keep the template they were asked with. */
export async function updateTemplate(deps: ReportsDeps, req: reports.UpdateTemplateRequest, ctx: CallerContext): Promise<reports.Template> {
  req.clear.forEach((c, i) => {
    if (!CLEARABLE.includes(c))
      throw new DomainError('422103', { field: `clear[${i}]`, detail: `${c} cannot be set to null.`, suggestion: `Only ${CLEARABLE.join(', ')} may be null.` });
  });
  const name = req.name !== undefined ? checkText(req.name, 'name', 1, 100) : undefined;
  const description = req.description !== undefined ? checkText(req.description, 'description', 0, 2000) : undefined;
  const sections = req.sections ? checkSections(req.sections.values) : undefined;
  const pointIds = req.pointIds ? checkPointIds(req.pointIds.values) : undefined;
  const formats = req.formats ? checkFormats(req.formats.values) : undefined;
  const timeZone = req.timeZone !== undefined ? checkTimeZone(req.timeZone) : undefined;
  return deps.db.transaction(async (tx) => {
    const current = await loadTemplate(tx, req.id, ctx, 'template_id', true);
    checkVersion(current.version, req.expectedVersion);
    const { rows } = await tx.query<TemplateRow>(
      `UPDATE templates SET name = $2, description = $3, sections = $4, point_ids = $5, formats = $6, updated_at = $7, time_zone = $8, version = version + 1
        WHERE id = $1 RETURNING ${TEMPLATE_COLUMNS}`,
      [
        current.id,
        name ?? current.name,
        req.clear.includes('description') ? null : description !== undefined ? description || null : current.description,
        sections ?? current.sections,
        req.clear.includes('point_ids') ? [] : (pointIds ?? current.point_ids),
        formats ?? current.formats,
        deps.clock.now().toISOString(),
        req.clear.includes('time_zone') ? null : (timeZone ?? current.time_zone),
      ],
    );
    return toTemplate(rows[0]!);
  });
}

/** DELETE /templates/{id}: reports made with it keep their copy of it. */
export async function deleteTemplate(deps: ReportsDeps, req: reports.Ref, ctx: CallerContext): Promise<reports.Template> {
  return deps.db.transaction(async (tx) => {
    const current = await loadTemplate(tx, req.id, ctx, 'template_id', true);
    checkVersion(current.version, req.expectedVersion);
    const now = deps.clock.now().toISOString();
    await tx.query('UPDATE templates SET deleted_at = $2, updated_at = $2 WHERE id = $1', [current.id, now]);
    return toTemplate({ ...current, updated_at: now });
  });
}
