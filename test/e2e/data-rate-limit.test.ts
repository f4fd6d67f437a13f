import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// docs/rules.md#limits: data writes are limited in records per minute per tenant and environment (429002).
// The operator default is lowered to 10 here so the limit is reached with a few records.
describe('data-write rate limit', () => {
  let t: TestPlatform;
  let key: string;
  let projectId: string;
  const h = () => ({ 'x-api-key': key });
  const records = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => ({
      point_id: 'pt_00000000000000000000',
      measured_at: new Date(Date.UTC(2026, 2, 1) + (from + i) * 1000).toISOString(),
      values: { dz: 1 },
    }));

  beforeAll(async () => {
    t = await startTestPlatform({ MP_LIMIT_DATA_RECORDS_PER_MINUTE: '10' });
    key = await t.apiKey(['project:write', 'data:write']);
    // A project that has not started: accepted writes are refused by the service (422303) after
    // they were counted, so the limit is reached without setting up points.
    projectId = (await t.api('POST', '/projects', { headers: h(), body: { name: 'Dam crest', number: 'DAM-1' } })).body.data.id;
  });
  afterAll(() => t?.stop());

  it('counts records, not requests, and refuses the write that would exceed the limit with 429002 and the rate-limit headers', async () => {
    expectError(await t.api('POST', `/projects/${projectId}/data`, { headers: h(), body: { records: records(6, 0) } }), 422303, 'project_id');
    const res = await t.api('POST', `/projects/${projectId}/data`, { headers: h(), body: { records: records(5, 6) } });
    expectError(res, 429002, 'records');
    expect(res.headers['x-ratelimit-limit']).toBe('10');
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect(await queryTestDatabase(t.db.url, 'SELECT id FROM monitoring_data.data_records')).toEqual([]);
    expect(await queryTestDatabase(t.db.url, 'SELECT seq FROM monitoring_data.outbox')).toEqual([]);
    // the refused write took no points: 4 records still fit in this minute, batches count too
    expectError(await t.api('POST', `/projects/${projectId}/data/batches`, { headers: h(), body: { records: records(5, 20) } }), 429002, 'records');
    expectError(await t.api('POST', `/projects/${projectId}/data`, { headers: h(), body: { records: records(4, 30) } }), 422303, 'project_id');
  });
});
