import { DomainError } from '@mp/errors';
import type { Queryable } from '@mp/db';
import type { PersonJson } from './people.js';
import { checkId } from './validation.js';

/**
 * A task is carried out by a member of its project who may write there (owner or editor):
 * someone else is 422104 (the reference does not resolve to a member), a viewer 422204.
 */
export async function assigneeIn(q: Queryable, projectId: string, userId: string, field: string): Promise<PersonJson> {
  checkId('user', userId, field);
  const { rows } = await q.query<{ role: string; name: string | null; phone_masked: string | null }>(
    'SELECT role, name, phone_masked FROM project_members WHERE project_id = $1 AND user_id = $2',
    [projectId, userId],
  );
  const m = rows[0];
  if (!m) {
    throw new DomainError('422104', {
      field,
      detail: `User ${userId} is not a member of project ${projectId}.`,
      suggestion: 'Add the user to the project with POST /projects/{project_id}/members first.',
    });
  }
  if (m.role === 'viewer') {
    throw new DomainError('422204', {
      field,
      detail: `User ${userId} is a viewer of project ${projectId} and cannot carry out tasks.`,
      suggestion: 'Give the user the editor role, or assign someone else.',
    });
  }
  return { user_id: userId, name: m.name ?? userId, phone: m.phone_masked ?? '' };
}
