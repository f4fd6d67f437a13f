import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';

/** The largest site plan kept (a site drawing exported as PNG or JPEG): its base64 fits the 5 MB body limit; the image lives in the row. */
export const MAX_PLAN_BYTES = 3 * 1024 * 1024;
/** Largest side in pixels: every browser that opens the project decodes the whole image (4 bytes a pixel). */
export const MAX_PLAN_SIDE = 6000;
/** Placements on one plan: far above a site's points, low enough for one statement. */
export const MAX_PLAN_POSITIONS = 2000;

export interface SitePlanRow {
  project_id: string;
  content_type: string;
  width: number;
  height: number;
  sha256: string;
  size: number;
  image?: Buffer;
  updated_by: string;
  updated_at: string;
}

interface PositionRow {
  point_id: string;
  x: number;
  y: number;
}

const COLUMNS = 'project_id, content_type, width, height, sha256, octet_length(image) AS size, updated_by, updated_at';

export const noPlan = (projectId: string) =>
  new DomainError('404040', {
    field: 'project_id',
    detail: `Project ${projectId} has no site plan.`,
    suggestion: 'Upload the drawing with PUT /v3/projects/{project_id}/site-plan first.',
  });

/** The project's plan with its placements (in point id order); the image bytes only when asked for. */
export async function loadSitePlan(q: Queryable, projectId: string, opts: { withImage?: boolean; lock?: boolean } = {}): Promise<projects.SitePlan> {
  const { rows } = await q.query<SitePlanRow>(
    `SELECT ${COLUMNS}${opts.withImage ? ', image' : ''} FROM site_plans WHERE project_id = $1${opts.lock ? ' FOR UPDATE' : ''}`,
    [projectId],
  );
  const row = rows[0];
  if (!row) throw noPlan(projectId);
  const positions = await q.query<PositionRow>('SELECT point_id, x, y FROM site_plan_positions WHERE project_id = $1 ORDER BY point_id', [projectId]);
  return {
    projectId: row.project_id,
    contentType: row.content_type,
    size: Number(row.size),
    width: row.width,
    height: row.height,
    sha256: row.sha256,
    image: row.image ?? Buffer.alloc(0),
    positions: positions.rows.map((p) => ({ pointId: p.point_id, x: p.x, y: p.y })),
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
  };
}
