import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import type { ProjectsDeps } from '../deps.js';
import { PROJECT_COLUMNS, toProject, type ProjectRow } from '../project-row.js';

export const PROJECT_STATUSES = ['not_started', 'in_progress', 'paused', 'completed', 'archived'] as const;

export async function listProjects(deps: ProjectsDeps, req: projects.ListProjectsRequest, ctx: CallerContext): Promise<projects.ProjectList> {
  const limit = pageLimit(req.page?.limit);
  const where = ['tenant_id = $1', 'environment = $2'];
  const params: unknown[] = [ctx.tenantId, ctx.environment];
  if (req.status !== undefined) {
    if (!(PROJECT_STATUSES as readonly string[]).includes(req.status)) {
      throw new DomainError('422103', { field: 'status', detail: `status must be one of ${PROJECT_STATUSES.join(', ')}.` });
    }
    params.push(req.status);
    where.push(`status = $${params.length}`);
  }
  if (req.q) {
    params.push(`%${req.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(name ILIKE $${params.length} OR number ILIKE $${params.length})`);
  }
  if (req.page?.cursor) {
    const [createdAt, id] = decodeCursor(req.page.cursor);
    if (typeof createdAt !== 'string' || typeof id !== 'string') throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
    params.push(createdAt, id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const { rows } = await deps.db.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = toPage(rows, limit, (r) => [r.created_at, r.id]);
  return { items: page.items.map(toProject), page: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
}
