import type { ProjectStatus, projects } from '@mp/contracts';
import { createOnce, isUniqueViolation } from '@mp/db';
import { DomainError, excerpt } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { checkTimeZone, newId } from '@mp/kit';
import { checkBounds } from '../bounds.js';
import type { ProjectsDeps } from '../deps.js';
import { emit } from '../events.js';
import { PROJECT_COLUMNS, toProject, type ProjectRow } from '../project-row.js';
import { checkDate, checkOptionalText, checkText } from '../validation.js';

/** 422204 when the end date lies before the start date. */
export function checkDateOrder(startDate: string | null, endDate: string | null): void {
  if (startDate && endDate && endDate < startDate) {
    throw new DomainError('422204', {
      field: 'end_date',
      detail: 'end_date is earlier than start_date.',
      suggestion: 'Send an end_date on or after start_date.',
    });
  }
}

/**
 * Validates and stores a new project, writing project.created to the outbox in the same
 * transaction. A user who creates a project becomes its owner (docs/adr/0007).
 */
export async function createProject(deps: ProjectsDeps, req: projects.CreateProjectRequest, ctx: CallerContext): Promise<projects.Project> {
  const name = checkText(req.name, 'name', 2, 100);
  const number = checkText(req.number, 'number', 1, 64);
  const description = checkOptionalText(req.description, 'description', 2000);
  const startDate = checkDate(req.startDate, 'start_date');
  const endDate = checkDate(req.endDate, 'end_date');
  checkDateOrder(startDate, endDate);
  const bounds = req.bounds ? checkBounds(req.bounds) : null;
  // The tenant has no zone of its own: a project not given one shows UTC, as the API does.
  const timeZone = req.timeZone !== undefined ? checkTimeZone(req.timeZone) : 'UTC';

  const now = deps.clock.now().toISOString();
  try {
    const project = await createOnce(deps.db, deps.clock.now(), ctx, 'CreateProject', req, async (tx) => {
      const { rows } = await tx.query<ProjectRow>(
        `INSERT INTO projects (id, tenant_id, environment, number, name, description, start_date, end_date, bounds, created_by, created_at, updated_at, time_zone)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12) RETURNING ${PROJECT_COLUMNS}`,
        [
          newId('project'),
          ctx.tenantId,
          ctx.environment,
          number,
          name,
          description,
          startDate,
          endDate,
          bounds ? JSON.stringify(bounds) : null,
          ctx.principalId,
          now,
          timeZone,
        ],
        { prepare: 'projects_create' },
      );
      const row = rows[0]!;
      if (ctx.principalType === 'user') {
        await tx.query(
          `INSERT INTO project_members (project_id, tenant_id, environment, user_id, role, added_by, created_at, updated_at) VALUES ($1, $2, $3, $4, 'owner', $4, $5, $5)`,
          [row.id, ctx.tenantId, ctx.environment, ctx.principalId, now],
        );
      }
      await emit(tx, ctx, 'project.created', now, {
        project_id: row.id,
        project_name: row.name,
        number: row.number,
        // the column is only ever written from PROJECT_STATUSES (checked on input, moved by the transition table)
        status: row.status as ProjectStatus,
        start_date: toProject(row).startDate ?? null,
        end_date: toProject(row).endDate ?? null,
        created_by: ctx.principalId,
        created_at: row.created_at,
      });
      return toProject(row);
    });
    deps.relay.kick();
    return project;
  } catch (err) {
    if (isUniqueViolation(err, 'projects_number_unique')) {
      throw new DomainError('409001', {
        field: 'number',
        detail: `A project with number ${excerpt(number)} already exists.`,
        suggestion: 'Choose another project number, or fetch the existing project.',
      });
    }
    throw err;
  }
}
