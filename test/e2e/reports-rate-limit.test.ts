import { queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Spec §8: report generation is limited per tenant and environment (10 per hour by default,
// 429003), with the X-RateLimit-* headers on the answers and Retry-After on the refusal, and a
// refused generation stores nothing.
describe('report generation rate limit', () => {
  let t: TestPlatform;
  let key: string;
  const h = () => ({ 'x-api-key': key });

  beforeAll(async () => {
    t = await startTestPlatform({ MP_LIMIT_REPORTS_PER_HOUR: '2' });
    key = await t.apiKey(['project:read', 'project:write', 'report:read', 'report:write']);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('allows the tenant its reports per hour, then refuses with 429003 and the limit headers', async () => {
    const projectId = (await t.api('POST', '/projects', { headers: h(), body: { name: 'Limits', number: 'RL-1' } })).body.data.id;
    const templateId = (await t.api('POST', '/templates', { headers: h(), body: { name: 'T', sections: ['summary'] } })).body.data.id;
    const body = { template_id: templateId, from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' };
    // Accepted generations carry the request-rate headers of every authenticated route (429001's).
    for (let i = 0; i < 2; i++) expect((await t.api('POST', `/projects/${projectId}/reports`, { headers: h(), body })).status).toBe(200);
    const refused = await t.api('POST', `/projects/${projectId}/reports`, { headers: h(), body });
    expectError(refused, 429003);
    expect(refused.headers['x-ratelimit-limit']).toBe('2');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const reset = Number(refused.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);
    const retry = Number(refused.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(3600);
    const [{ n }] = await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.reports');
    expect(n).toBe(2);
    // Other requests of the tenant are not affected.
    expect((await t.api('GET', '/reports', { headers: h() })).body.data.items).toHaveLength(2);
  });
});
