import { DomainError } from '@mp/errors';
import { TextBytes } from '@mp/kit';
import { presentData } from '../src/presenters-data.js';
import { pointIdOf, recordColumns, recordCount } from '../src/record-columns.js';

const good = (i: number) => ({
  point_id: `pt_${String(i).padStart(20, '0')}`,
  measured_at: '2026-03-03T08:00:00.5+08:00',
  values: { x: 3512345.1 + i, dz: -0.25 },
});

// The request's records become contract columns without zod when they are plainly well-formed;
// anything else goes through the schema, so every refusal is the schema's.
describe('record columns of a data write', () => {
  const refusal = (body: Record<string, unknown>, kind: 'write' | 'batch' = 'write') => {
    try {
      recordColumns(kind, body);
    } catch (err) {
      return { code: (err as DomainError).code, field: (err as DomainError).field };
    }
    throw new Error('accepted');
  };

  it('takes well-formed records column by column, each point and instant named once, absent values as NaN, precision only when sent', () => {
    const cols = recordColumns('write', {
      records: [good(1), { ...good(2), values: { dx: 1, dy: 2, dz: 3 }, extra: 'ignored' }, { ...good(1), measured_at: '2026-03-03T09:00:00Z' }],
    });
    expect(cols).toEqual({
      pointId: [],
      measuredAt: [],
      // no instrument channels: the compressed channel rows stay empty
      channelNames: [],
      channelOffset: [],
      channelIndex: [],
      channelValue: [],
      pointIds: ['pt_00000000000000000001', 'pt_00000000000000000002'],
      pointIndex: [0, 1, 0],
      instants: ['2026-03-03T08:00:00.5+08:00', '2026-03-03T09:00:00Z'],
      instantIndex: [0, 0, 1],
      x: [3512346.1, NaN, 3512346.1],
      y: [NaN, NaN, NaN],
      z: [NaN, NaN, NaN],
      dx: [NaN, 1, NaN],
      dy: [NaN, 2, NaN],
      dz: [-0.25, 3, -0.25],
      precision: [],
    });
    expect(recordCount(cols)).toBe(3);
    expect([0, 1, 2].map((i) => pointIdOf(cols, i))).toEqual(['pt_00000000000000000001', 'pt_00000000000000000002', 'pt_00000000000000000001']);
    expect(recordColumns('write', { records: [good(1), { ...good(2), precision: 0.5 }] }).precision).toEqual([NaN, 0.5]);
  });

  it.each([
    [{}, '422101', 'records'],
    [{ records: 'all' }, '422102', 'records'],
    [{ records: [] }, '400003', 'records'],
    [{ records: [good(0), 'x'] }, '422102', 'records[1]'],
    [{ records: [good(0), { ...good(1), values: null }] }, '422102', 'records[1].values'],
    [{ records: [good(0), { ...good(1), values: { x: '1.5' } }] }, '422102', 'records[1].values.x'],
    [{ records: [good(0), { ...good(1), values: { dz: null } }] }, '422102', 'records[1].values.dz'],
    [{ records: [{ ...good(0), point_id: 'PT_1' }] }, '400004', 'records[0].point_id'],
    [{ records: [{ ...good(0), measured_at: '2026-03-03 08:00' }] }, '400004', 'records[0].measured_at'],
    [{ records: [{ ...good(0), measured_at: 1 }] }, '422102', 'records[0].measured_at'],
    [{ records: [{ measured_at: good(0).measured_at, values: {} }] }, '422101', 'records[0].point_id'],
    [{ records: [{ ...good(0), precision: 0 }] }, '400003', 'records[0].precision'],
    [{ records: [{ ...good(0), precision: '1' }] }, '422102', 'records[0].precision'],
  ])('refuses %j with the schema error %s at %s', (body, code, field) => {
    expect(refusal(body as Record<string, unknown>)).toEqual({ code, field });
  });

  it('holds a write to 1,000 records and lets a batch take more', () => {
    const many = { records: Array.from({ length: 1001 }, (_, i) => good(i)) };
    expect(refusal(many)).toEqual({ code: '400003', field: 'records' });
    expect(recordCount(recordColumns('batch', many))).toBe(1001);
    expect(recordCount(recordColumns('write', { records: many.records.slice(0, 1000) }))).toBe(1000);
  });
});

describe('the answer to a data write', () => {
  const projectId = 'prj_"odd"\\id';
  const cols = recordColumns('write', { records: [good(1), good(2)] });
  const expected = (measuredAt: string[]) =>
    JSON.stringify({
      project_id: projectId,
      total_count: 2,
      abnormal_count: 1,
      records: [
        { data_id: 'dat_1', point_id: pointIdOf(cols, 0), measured_at: measuredAt[0], status: 'normal', quality_flag: 'valid' },
        { data_id: 'dat_2', point_id: pointIdOf(cols, 1), measured_at: measuredAt[1], status: 'alarm', quality_flag: 'valid' },
      ],
    });
  const empty = { statuses: [], statusIndex: [], instants: [], instantIndex: [] };
  /** The answer as text; the writer starts too small, so it grows on the way. */
  const writtenText = (res: Parameters<typeof presentData.written>[3]): string => {
    const w = new TextBytes(1);
    presentData.written(w, projectId, cols, res);
    return w.finish().toString('utf8');
  };

  it('is the JSON of the records in request order, the project id escaped (an answer in dictionary form)', () => {
    const res = {
      dataId: ['dat_1', 'dat_2'],
      status: [],
      measuredAt: [],
      totalCount: 2,
      abnormalCount: 1,
      statuses: ['alarm', 'normal'],
      statusIndex: [1, 0],
      instants: ['2026-03-03T08:00:00.500+08:00'],
      instantIndex: [0, 0],
    };
    expect(writtenText(res)).toBe(expected(['2026-03-03T08:00:00.500+08:00', '2026-03-03T08:00:00.500+08:00']));
  });

  it('reads a plain answer too (a service of an earlier build)', () => {
    const res = {
      dataId: ['dat_1', 'dat_2'],
      status: ['normal', 'alarm'],
      measuredAt: ['2026-03-03T08:00:00.000+08:00', '2026-03-03T08:00:01.000Z'],
      totalCount: 2,
      abnormalCount: 1,
      ...empty,
    };
    expect(writtenText(res)).toBe(expected(res.measuredAt));
  });
});
