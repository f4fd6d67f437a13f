import type { projects } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import { appendEvent } from '@mp/events';
import type { CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import type { ProjectsDeps } from '../deps.js';
import { PROJECT_COLUMNS, toProject, type ProjectRow } from '../project-row.js';
import { isUniqueViolation } from '../pg-errors.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function checkDate(value: string | undefined, field: string): string | null {
  if (value === undefined || value === '') return null;
  if (!DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) {
    throw new DomainError('400004', { field, detail: `${field} must be a calendar date in ISO 8601 form (YYYY-MM-DD).`, suggestion: 'Send the date as YYYY-MM-DD, e.g. 2026-03-01.' });
  }
  return value;
}

/** Validates and stores a new project, writing project.created to the outbox in the same transaction. */
export async function createProject(deps: ProjectsDeps, req: projects.CreateProjectRequest, ctx: CallerContext): Promise<projects.Project> {
  const name = req.name.trim();
  if (name.length < 2 || name.length > 100) {
    throw new DomainError('400003', { field: 'name', detail: `name must be 2 to 100 characters long; got ${name.length}.`, suggestion: 'Send a project name of 2 to 100 characters.' });
  }
  const number = req.number.trim();
  if (number.length < 1 || number.length > 64) {
    throw new DomainError('400003', { field: 'number', detail: 'number must be 1 to 64 characters long.', suggestion: 'Send a project number of 1 to 64 characters.' });
  }
  if ((req.description?.length ?? 0) > 2000) {
    throw new DomainError('400003', { field: 'description', detail: 'description is at most 2000 characters long.' });
  }
  const startDate = checkDate(req.startDate, 'start_date');
  const endDate = checkDate(req.endDate, 'end_date');
  if (startDate && endDate && endDate < startDate) {
    throw new DomainError('422204', { field: 'end_date', detail: 'end_date is earlier than start_date.', suggestion: 'Send an end_date on or after start_date.' });
  }

  const id = newId('project');
  const now = deps.clock.now().toISOString();
  try {
    const row = await deps.db.transaction(async (tx) => {
      const { rows } = await tx.query<ProjectRow>(
        `INSERT INTO projects (id, tenant_id, environment, number, name, description, start_date, end_date, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING ${PROJECT_COLUMNS}`,
        [id, ctx.tenantId, ctx.environment, number, name, req.description ?? null, startDate, endDate, ctx.principalId, now],
      );
      const project = rows[0]!;
      await appendEvent(tx, {
        type: 'project.created',
        tenantId: ctx.tenantId,
        environment: ctx.environment,
        occurredAt: now,
        ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
        data: {
          project_id: project.id,
          project_name: project.name,
          number: project.number,
          status: project.status,
          start_date: project.start_date,
          end_date: project.end_date,
          created_by: ctx.principalId,
          created_at: project.created_at,
        },
      });
      return project;
    });
    deps.relay.kick();
    return toProject(row);
  } catch (err) {
    if (isUniqueViolation(err, 'projects_number_unique')) {
      throw new DomainError('409001', { field: 'number', detail: `A project with number "${number}" already exists.`, suggestion: 'Choose another project number, or fetch the existing project.' });
    }
    throw err;
  }
}
