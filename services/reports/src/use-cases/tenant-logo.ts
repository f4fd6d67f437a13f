import { createHash } from 'node:crypto';
import type { common, reports } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import type { ReportsDeps } from '../deps.js';
import { checkLogo } from '../logo-image.js';
import { LOGO_COLUMNS, loadLogoRow, type LogoRow } from '../logo-row.js';

const toLogo = (r: LogoRow): reports.TenantLogo => ({
  contentType: r.content_type,
  sizeBytes: r.image.length,
  sha256: r.sha256,
  width: r.width,
  height: r.height,
  updatedAt: r.updated_at,
  ...(r.updated_by ? { updatedBy: r.updated_by } : {}),
  image: r.image,
});

const missing = () =>
  new DomainError('404019', {
    field: null,
    detail: 'This tenant has no logo in this environment.',
    suggestion: 'Upload one with PUT /v3/tenant/logo.',
  });

/** PUT /tenant/logo (system:admin): the logo every later report of the tenant's environment shows. */
export async function putTenantLogo(deps: ReportsDeps, req: reports.PutTenantLogoRequest, ctx: CallerContext): Promise<reports.TenantLogo> {
  const image = Buffer.from(req.image);
  const logo = await checkLogo(image);
  const { rows } = await deps.db.query<LogoRow>(
    `INSERT INTO tenant_logos (tenant_id, environment, content_type, image, sha256, width, height, updated_by, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (tenant_id, environment) DO UPDATE SET content_type = $3, image = $4, sha256 = $5, width = $6, height = $7, updated_by = $8, updated_at = $9
     RETURNING ${LOGO_COLUMNS}`,
    [
      ctx.tenantId,
      ctx.environment,
      logo.contentType,
      image,
      createHash('sha256').update(image).digest('hex'),
      logo.width,
      logo.height,
      ctx.principalId || null,
      deps.clock.now().toISOString(),
    ],
  );
  return toLogo(rows[0]!);
}

export async function getTenantLogo(deps: ReportsDeps, _req: common.Empty, ctx: CallerContext): Promise<reports.TenantLogo> {
  const row = await loadLogoRow(deps.db, ctx.tenantId, ctx.environment);
  if (!row) throw missing();
  return toLogo(row);
}

/** DELETE /tenant/logo: reports made from now on show the tenant's name only. */
export async function deleteTenantLogo(deps: ReportsDeps, _req: common.Empty, ctx: CallerContext): Promise<reports.TenantLogo> {
  const { rows } = await deps.db.query<LogoRow>(`DELETE FROM tenant_logos WHERE tenant_id = $1 AND environment = $2 RETURNING ${LOGO_COLUMNS}`, [
    ctx.tenantId,
    ctx.environment,
  ]);
  if (!rows[0]) throw missing();
  return toLogo(rows[0]);
}
