import { DomainError } from '@mp/errors';
import { isId, type IdKind } from '@mp/kit';

const NAMES: Partial<Record<IdKind, [string, string]>> = {
  project: ['project_id', 'prj_'],
  point: ['point_id', 'pt_'],
  data: ['data_id', 'dat_'],
  batch: ['batch_id', 'bat_'],
};

/** 400004 when a path id is not of its kind (a well-formed unknown id is the kind's 404). */
export function requireId(kind: 'project' | 'point' | 'data' | 'batch', value: string): string {
  if (isId(kind, value)) return value;
  const [field, prefix] = NAMES[kind]!;
  throw new DomainError('400004', {
    field,
    detail: `${field} is not a ${kind === 'data' ? 'data record' : kind} id (${prefix}…).`,
    suggestion: 'Use the id the API returned.',
  });
}
