import type { Queryable } from '@mp/db';

/** The tenant's logo as a report embeds it. */
export interface LogoImage {
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  sha256: string;
  bytes: Uint8Array;
}

export interface LogoRow {
  content_type: 'image/png' | 'image/jpeg';
  image: Buffer;
  sha256: string;
  width: number;
  height: number;
  updated_by: string | null;
  updated_at: string;
}

export const LOGO_COLUMNS = 'content_type, image, sha256, width, height, updated_by, updated_at';

export async function loadLogoRow(q: Queryable, tenantId: string, environment: string): Promise<LogoRow | null> {
  const { rows } = await q.query<LogoRow>(`SELECT ${LOGO_COLUMNS} FROM tenant_logos WHERE tenant_id = $1 AND environment = $2`, [tenantId, environment]);
  return rows[0] ?? null;
}

/** The logo a report of the tenant's environment shows, null when none was uploaded. */
export async function readLogo(q: Queryable, tenantId: string, environment: string): Promise<LogoImage | null> {
  const row = await loadLogoRow(q, tenantId, environment);
  return row ? { contentType: row.content_type, width: row.width, height: row.height, sha256: row.sha256, bytes: new Uint8Array(row.image) } : null;
}
