import type { projects } from '@mp/contracts';
import type { Role } from './access.js';

export interface MemberRow {
  project_id: string;
  user_id: string;
  role: Role;
  name: string | null;
  phone_masked: string | null;
  added_by: string | null;
  created_at: string;
  updated_at: string;
}

export const MEMBER_COLUMNS = 'project_id, user_id, role, name, phone_masked, added_by, created_at, updated_at';

export function toMember(row: MemberRow): projects.Member {
  return {
    projectId: row.project_id,
    userId: row.user_id,
    role: row.role,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.name !== null ? { name: row.name } : {}),
    ...(row.phone_masked !== null ? { phone: row.phone_masked } : {}),
    ...(row.added_by !== null ? { addedBy: row.added_by } : {}),
  };
}
