import type { monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';
import type { CallerContext } from '@mp/grpc';
import { decodeCursor, pageLimit, toPage } from '@mp/kit';
import type { DataDeps } from '../deps.js';
import { BATCH_COLUMNS, toBatch, type BatchRow } from '../batch-row.js';
import { requireId } from '../project-id.js';

/** Progress of a batch and its refused records (by index, paged with errors_page). */
export async function getBatch(deps: DataDeps, req: monitoringData.GetBatchRequest, caller: CallerContext): Promise<monitoringData.Batch> {
  requireId('batch', req.id);
  const { rows } = await deps.db.query<BatchRow>(`SELECT ${BATCH_COLUMNS} FROM batches WHERE id = $1`, [req.id]);
  const row = rows[0];
  if (!row || row.tenant_id !== caller.tenantId || row.environment !== caller.environment) {
    throw new DomainError('404013', { field: 'batch_id', detail: `Batch ${req.id} does not exist.` });
  }
  await deps.contexts.get(caller, row.project_id, [], false);
  const limit = pageLimit(req.errorsPage?.limit);
  let after = -1;
  if (req.errorsPage?.cursor) {
    const [i] = decodeCursor(req.errorsPage.cursor);
    if (typeof i !== 'number') throw new DomainError('400004', { field: 'cursor', detail: 'cursor is not one this API returned' });
    after = i;
  }
  const errors = await deps.db.query<{ idx: number; code: string; field: string; detail: string }>(
    'SELECT idx, code, field, detail FROM batch_errors WHERE batch_id = $1 AND idx > $2 ORDER BY idx LIMIT $3',
    [row.id, after, limit + 1],
  );
  const page = toPage(errors.rows, limit, (e) => [e.idx]);
  return toBatch(
    row,
    page.items.map((e) => ({ index: e.idx, code: e.code, field: e.field, detail: e.detail })),
    { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) },
  );
}
