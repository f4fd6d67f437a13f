import type { projects } from '@mp/contracts';
import { isUniqueViolation } from '@mp/db';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { checkTimeZone } from '@mp/kit';
import { checkVersion, projectFor } from '../access.js';
import { checkBounds, type Bounds } from '../bounds.js';
import type { ProjectsDeps } from '../deps.js';
import { dateOnly, PROJECT_COLUMNS, toProject, type ProjectRow } from '../project-row.js';
import { checkClear, checkDate, checkOptionalText, checkText } from '../validation.js';
import { checkDateOrder } from './create-project.js';

const CLEARABLE = ['description', 'start_date', 'end_date', 'bounds'] as const;

/** PATCH /projects/{id}: changes only the fields sent; 409004 on a stale version, 422301 when archived. */
export async function updateProject(deps: ProjectsDeps, req: projects.UpdateProjectRequest, ctx: CallerContext): Promise<projects.Project> {
  // Everything that can be checked without the row is checked first: a refused update changes nothing.
  const clear = checkClear(req.clear, CLEARABLE);
  const name = req.name !== undefined ? checkText(req.name, 'name', 2, 100) : undefined;
  const number = req.number !== undefined ? checkText(req.number, 'number', 1, 64) : undefined;
  const description = req.description !== undefined ? checkOptionalText(req.description, 'description', 2000) : undefined;
  const startDate = req.startDate !== undefined ? checkDate(req.startDate, 'start_date') : undefined;
  const endDate = req.endDate !== undefined ? checkDate(req.endDate, 'end_date') : undefined;
  const bounds = req.bounds ? checkBounds(req.bounds) : undefined;
  const timeZone = req.timeZone !== undefined ? checkTimeZone(req.timeZone) : undefined;
  try {
    const row = await deps.db.transaction(async (tx) => {
      const current = await projectFor(tx, ctx, req.id, 'write', { lock: 'update' });
      checkVersion(current.version, req.expectedVersion, 'project');
      const next = {
        name: name ?? current.name,
        number: number ?? current.number,
        description: clear.has('description') ? null : description !== undefined ? description : current.description,
        start_date: clear.has('start_date') ? null : startDate !== undefined ? startDate : dateOnly(current.start_date),
        end_date: clear.has('end_date') ? null : endDate !== undefined ? endDate : dateOnly(current.end_date),
        bounds: clear.has('bounds') ? null : (bounds ?? current.bounds),
        time_zone: timeZone ?? current.time_zone,
      };
      checkDateOrder(next.start_date, next.end_date);
      if (bounds) await assertPointsInside(tx, current.id, bounds);
      const { rows } = await tx.query<ProjectRow>(
        `UPDATE projects SET name = $2, number = $3, description = $4, start_date = $5, end_date = $6, bounds = $7, updated_at = $8, time_zone = $9, version = version + 1
          WHERE id = $1 RETURNING ${PROJECT_COLUMNS}`,
        [
          current.id,
          next.name,
          next.number,
          next.description,
          next.start_date,
          next.end_date,
          next.bounds ? JSON.stringify(next.bounds) : null,
          deps.clock.now().toISOString(),
          next.time_zone,
        ],
      );
      await deps.ingestVersions.bump(tx, ctx, current.id);
      return rows[0]!;
    });
    return toProject(row);
  } catch (err) {
    if (isUniqueViolation(err, 'projects_number_unique')) {
      throw new DomainError('409001', {
        field: 'number',
        detail: `A project with number ${excerpt(number)} already exists.`,
        suggestion: 'Choose another project number.',
      });
    }
    throw err;
  }
}

/** New bounds must still contain every point's reference (422201 names the first point outside). */
async function assertPointsInside(tx: import('@mp/db').Queryable, projectId: string, b: Bounds): Promise<void> {
  const { rows } = await tx.query<{ id: string; number: string }>(
    `SELECT id, number FROM points WHERE project_id = $1
       AND NOT (ref_x BETWEEN $2 AND $3 AND ref_y BETWEEN $4 AND $5 AND ref_z BETWEEN $6 AND $7) ORDER BY number LIMIT 1`,
    [projectId, b.min_x, b.max_x, b.min_y, b.max_y, b.min_z, b.max_z],
  );
  if (rows[0]) {
    throw new DomainError('422201', {
      field: 'bounds',
      detail: `Point ${rows[0].number} (${rows[0].id}) lies outside the new bounds.`,
      suggestion: "Choose bounds that contain every point's reference coordinates, or correct the point first.",
    });
  }
}
