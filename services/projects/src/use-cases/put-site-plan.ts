import { createHash } from 'node:crypto';
import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { imageHeader } from '@mp/kit';
import { projectFor } from '../access.js';
import type { ProjectsDeps } from '../deps.js';
import { loadSitePlan, MAX_PLAN_BYTES, MAX_PLAN_SIDE } from '../site-plan-row.js';

const invalid = (detail: string) =>
  new DomainError('422103', {
    field: 'image',
    detail,
    suggestion: `Upload a PNG or JPEG of at most ${MAX_PLAN_BYTES / 1024 / 1024} MiB and ${MAX_PLAN_SIDE} × ${MAX_PLAN_SIDE} pixels.`,
  });

/**
 * PUT /projects/{id}/site-plan: the drawing points are placed on by hand (ADR 0121). Its type and
 * dimensions are read from its own bytes; a new drawing keeps the placements (a revised sheet of
 * the same site), which PUT …/site-plan/positions replaces and DELETE removes with the plan.
 */
export async function putSitePlan(deps: ProjectsDeps, req: projects.PutSitePlanRequest, ctx: CallerContext): Promise<projects.SitePlan> {
  const image = Buffer.from(req.image);
  if (image.length === 0) throw new DomainError('422101', { field: 'image', detail: 'image is empty.', suggestion: 'Send the drawing, base64-encoded.' });
  if (image.length > MAX_PLAN_BYTES) throw invalid(`The image is ${image.length} bytes; a site plan is at most ${MAX_PLAN_BYTES} bytes.`);
  const header = imageHeader(image);
  if (!header) throw invalid('The image is neither a PNG nor a JPEG (checked by its first bytes).');
  if (header.width < 1 || header.height < 1) throw invalid(`The ${header.contentType} has no readable width and height (cut short?).`);
  if (header.width > MAX_PLAN_SIDE || header.height > MAX_PLAN_SIDE) {
    throw invalid(`The image is ${header.width} × ${header.height} pixels; a site plan is at most ${MAX_PLAN_SIDE} pixels on each side.`);
  }
  const sha256 = createHash('sha256').update(image).digest('hex');
  return deps.db.transaction(async (tx) => {
    const project = await projectFor(tx, ctx, req.projectId, 'write', { lock: 'share' });
    await tx.query(
      `INSERT INTO site_plans (project_id, content_type, width, height, sha256, image, updated_by, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (project_id) DO UPDATE SET content_type = $2, width = $3, height = $4, sha256 = $5, image = $6, updated_by = $7, updated_at = $8`,
      [project.id, header.contentType, header.width, header.height, sha256, image, ctx.principalId, deps.clock.now()],
    );
    return loadSitePlan(tx, project.id);
  });
}
