import { queryTestDatabase } from '@mp/testing';
import { createTenant, identityClient, tenantKey, upsertPlan } from '../support/identity.js';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// docs/rules.md#limits: report generation is limited per tenant and environment (10 per hour by default,
// 429003), with the X-RateLimit-* headers on the answers and Retry-After on the refusal, and a
// refused generation stores nothing. A plan sets its own limit, or leaves reports out (403004);
// one tenant never sees another's templates or reports.
describe('report generation rate limit, plans and tenants', () => {
  let t: TestPlatform;
  let key: string;
  const h = () => ({ 'x-api-key': key });

  beforeAll(async () => {
    t = await startTestPlatform({ MP_LIMIT_REPORTS_PER_HOUR: '2' });
    key = await t.apiKey(['project:read', 'project:write', 'data:read', 'report:read', 'report:write']);
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

  it('follows the tenant plan: its own report limit, 403004 without the reports feature, and no sight of other tenants', async () => {
    const id = identityClient(t);
    try {
      await upsertPlan(id, 'reports-one', ['reports'], { reportsPerHour: 1 });
      await upsertPlan(id, 'no-reports', []);
      const setup = async (plan: string) => {
        const tenant = await createTenant(id, plan);
        const k = await tenantKey(id, tenant, ['project:read', 'project:write', 'data:read', 'report:read', 'report:write']);
        const headers = { 'x-api-key': k };
        const project = (await t.api('POST', '/projects', { headers, body: { name: `Plan ${plan}`, number: 'PL-1' } })).body.data.id;
        const template = (await t.api('POST', '/templates', { headers, body: { name: 'T', sections: ['summary'] } })).body.data.id;
        return { headers, project, template };
      };
      const body = (template: string) => ({ template_id: template, from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' });
      const before = (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.reports'))[0]!.n;

      const one = await setup('reports-one');
      const first = await t.api('POST', `/projects/${one.project}/reports`, { headers: one.headers, body: body(one.template) });
      expect(first.status).toBe(200);
      const second = await t.api('POST', `/projects/${one.project}/reports`, { headers: one.headers, body: body(one.template) });
      expectError(second, 429003);
      expect(second.headers['x-ratelimit-limit']).toBe('1');

      const none = await setup('no-reports');
      expectError(await t.api('POST', `/projects/${none.project}/reports`, { headers: none.headers, body: body(none.template) }), 403004);
      expect((await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM reports.reports'))[0]!.n).toBe(before + 1);

      // Another tenant's template and report are unknown to this one, in either direction.
      expectError(await t.api('GET', `/reports/${first.body.data.id}`, { headers: none.headers }), 404005, 'report_id');
      expectError(await t.api('GET', `/templates/${one.template}`, { headers: none.headers }), 404006, 'template_id');
      expectError(await t.api('PATCH', `/templates/${none.template}`, { headers: one.headers, body: { name: 'taken over' } }), 404006, 'template_id');
      expect((await t.api('GET', '/templates', { headers: none.headers })).body.data.items.map((x: { id: string }) => x.id)).toEqual([none.template]);
      expect((await t.api('GET', '/reports', { headers: none.headers })).body.data.items).toEqual([]);
    } finally {
      id.close();
    }
  });
});
