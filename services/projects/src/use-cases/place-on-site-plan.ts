import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { loadSitePlan, MAX_PLAN_POSITIONS } from '../site-plan-row.js';
import { checkId } from '../validation.js';

/**
 * PUT /projects/{id}/site-plan/positions: where each point sits on the drawing, as fractions of its
 * width (x, from the left) and height (y, from the top); replaces every placement at once, so a
 * point left out is taken off the plan. Every point must be one of the project's (422104 naming
 * the entry); nothing is changed when one entry is refused.
 */
export async function placeOnSitePlan(deps: ProjectsDeps, req: projects.PlaceOnSitePlanRequest, ctx: CallerContext): Promise<projects.SitePlan> {
  if (req.positions.length > MAX_PLAN_POSITIONS) {
    throw new DomainError('422105', {
      field: 'positions',
      detail: `${req.positions.length} placements; a plan takes at most ${MAX_PLAN_POSITIONS}.`,
      suggestion: 'Place the points of one project only, once each.',
    });
  }
  const seen = new Set<string>();
  req.positions.forEach((p, i) => {
    checkId('point', p.pointId, `positions[${i}].point_id`);
    for (const axis of ['x', 'y'] as const) {
      const v = p[axis];
      if (!Number.isFinite(v) || v < 0 || v > 1) {
        throw new DomainError('422105', {
          field: `positions[${i}].${axis}`,
          detail: `positions[${i}].${axis} is ${v}; a place on the plan is a fraction of its ${axis === 'x' ? 'width' : 'height'}, 0 … 1.`,
          suggestion: 'Send x from the left edge and y from the top edge, each between 0 and 1.',
        });
      }
    }
    if (seen.has(p.pointId)) {
      throw new DomainError('422204', {
        field: `positions[${i}].point_id`,
        detail: `Point ${p.pointId} is placed twice.`,
        suggestion: 'Place each point once.',
      });
    }
    seen.add(p.pointId);
  });
  return deps.db.transaction(async (tx) => {
    const project = await projectFor(tx, ctx, req.projectId, 'write', { lock: 'share' });
    await loadSitePlan(tx, project.id, { lock: true });
    const ids = req.positions.map((p) => p.pointId);
    const { rows } = await tx.query<{ id: string }>('SELECT id FROM points WHERE project_id = $1 AND id = ANY($2::text[])', [project.id, ids]);
    const ours = new Set(rows.map((r) => r.id));
    const stranger = ids.findIndex((id) => !ours.has(id));
    if (stranger >= 0) {
      throw new DomainError('422104', {
        field: `positions[${stranger}].point_id`,
        detail: `Point ${ids[stranger]} is not a point of project ${project.id}.`,
        suggestion: 'Place the points of this project (GET /v3/projects/{project_id}/points).',
      });
    }
    await tx.query('DELETE FROM site_plan_positions WHERE project_id = $1', [project.id]);
    await tx.query(
      `INSERT INTO site_plan_positions (project_id, point_id, x, y)
       SELECT $1, p, x, y FROM unnest($2::text[], $3::float8[], $4::float8[]) AS t(p, x, y)`,
      [project.id, ids, req.positions.map((p) => p.x), req.positions.map((p) => p.y)],
    );
    await tx.query('UPDATE site_plans SET updated_by = $2, updated_at = $3 WHERE project_id = $1', [project.id, ctx.principalId, deps.clock.now()]);
    return loadSitePlan(tx, project.id);
  });
}
