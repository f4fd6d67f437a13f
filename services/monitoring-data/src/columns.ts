import { Dictionary, type monitoringData } from '@mp/contracts';
import { DomainError } from '@mp/errors';

type Columns = monitoringData.RecordColumns;

/** Whether the columns name points and instants through dictionaries (RecordColumns.point_index). */
export const inDictionaryForm = (cols: Columns): boolean => cols.pointIndex.length > 0;

const malformed = (detail: string) => new DomainError('400001', { field: 'records', detail: `The record columns are malformed: ${detail}.` });

/**
 * How many records the columns hold, in either form; a dictionary whose indexes do not fit its
 * records or values is 400001 on `records`. Copies nothing (a stored batch is checked so on arrival).
 */
export function checkedRecordCount(cols: Columns): number {
  if (!inDictionaryForm(cols)) return cols.pointId.length;
  const n = cols.pointIndex.length;
  if (cols.pointId.length || cols.measuredAt.length) throw malformed('point_id and measured_at must be empty when point_index is given');
  if (cols.instantIndex.length !== n) throw malformed(`instant_index has ${cols.instantIndex.length} entries for ${n} records`);
  for (let i = 0; i < n; i++) {
    if (cols.pointIndex[i]! >= cols.pointIds.length || cols.instantIndex[i]! >= cols.instants.length) {
      throw malformed(`record ${i} refers to a point or instant the dictionary does not hold`);
    }
  }
  return n;
}

/**
 * The columns with point_id and measured_at spelled out per record, from either form (checked by
 * checkedRecordCount). The strings of the dictionary form are shared, not copied: each distinct
 * point id or instant is one string, so the per-record rules hash and parse it once for all its
 * records.
 */
export function expandColumns(cols: Columns): Columns {
  if (!inDictionaryForm(cols)) return cols;
  const n = checkedRecordCount(cols);
  const pointId = new Array<string>(n);
  const measuredAt = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    pointId[i] = cols.pointIds[cols.pointIndex[i]!]!;
    measuredAt[i] = cols.instants[cols.instantIndex[i]!]!;
  }
  return { ...cols, pointId, measuredAt, pointIds: [], pointIndex: [], instants: [], instantIndex: [] };
}

/** Each distinct value once, and per value its index there. */
function indexed(values: readonly string[]): { dictionary: string[]; index: number[] } {
  const d = new Dictionary();
  const index = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) index[i] = d.indexOf(values[i]!);
  return { dictionary: d.values, index };
}

/** The answer to a write: in dictionary form when the request came in it (an older gateway reads the plain form). */
export function writeResult(
  records: { ids: string[]; statuses: string[]; measuredAt: string[]; abnormalCount: number },
  dictionary: boolean,
): monitoringData.WriteRecordsResult {
  const base = { dataId: records.ids, totalCount: records.ids.length, abnormalCount: records.abnormalCount };
  if (!dictionary) return { ...base, status: records.statuses, measuredAt: records.measuredAt, statuses: [], statusIndex: [], instants: [], instantIndex: [] };
  const statuses = indexed(records.statuses);
  const instants = indexed(records.measuredAt);
  return {
    ...base,
    status: [],
    measuredAt: [],
    statuses: statuses.dictionary,
    statusIndex: statuses.index,
    instants: instants.dictionary,
    instantIndex: instants.index,
  };
}
