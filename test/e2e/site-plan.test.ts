import { createHash } from 'node:crypto';
import { pngImage, queryTestDatabase } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// A project's site plan (ADR 0121) through the HTTPS gateway: a drawing checked by its own bytes,
// points placed on it by hand (fractions of its width and height), replaced at once, refused
// whole when one entry is wrong; members read it, viewers cannot change it, outsiders see nothing;
// it goes with its project and a placement with its point.
describe('site plan of a project', () => {
  let t: TestPlatform;
  let key: string;
  let projectId: string;
  let otherProjectId: string;
  const points: string[] = [];
  let otherPoint: string;
  const h = () => ({ 'x-api-key': key });
  const drawing = pngImage(320, 200, (x, y) => [x % 256, y % 256, 128, 255]);
  const must = async (res: Promise<{ status: number; body: { data?: unknown } }>) => {
    const r = await res;
    expect(r.status).toBe(200);
    return r.body.data as Record<string, unknown> & { id: string };
  };
  const rows = (sql: string, params: unknown[] = []) => queryTestDatabase(t.db.url, sql, params);

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write', 'data:read', 'data:write', 'system:admin']);
    projectId = (await must(t.api('POST', '/projects', { headers: h(), body: { name: 'Dam face', number: 'DAM-1' } }))).id;
    otherProjectId = (await must(t.api('POST', '/projects', { headers: h(), body: { name: 'Spillway', number: 'SPW-1' } }))).id;
    for (const n of ['PZ-01', 'PZ-02', 'CM-01']) {
      const sensor = n.startsWith('PZ') ? 'piezometer' : 'crack_meter';
      points.push((await must(t.api('POST', `/projects/${projectId}/points`, { headers: h(), body: { number: n, name: n, sensor_type: sensor } }))).id);
    }
    otherPoint = (
      await must(t.api('POST', `/projects/${otherProjectId}/points`, { headers: h(), body: { number: 'PZ-90', name: 'PZ-90', sensor_type: 'piezometer' } }))
    ).id;
  }, 120_000);
  afterAll(() => t?.stop());

  it('keeps an uploaded drawing, read back byte for byte with its type, size and dimensions', async () => {
    expectError(await t.api('GET', `/projects/${projectId}/site-plan`, { headers: h() }), 404040, 'project_id');
    const put = await t.api('PUT', `/projects/${projectId}/site-plan`, { headers: h(), body: { image: drawing.toString('base64') } });
    expect(put.status).toBe(200);
    const sha256 = createHash('sha256').update(drawing).digest('hex');
    expect(put.body.data).toEqual({
      project_id: projectId,
      content_type: 'image/png',
      size_bytes: drawing.length,
      sha256,
      width: 320,
      height: 200,
      positions: [],
      updated_by: expect.any(String),
      updated_at: expect.any(String),
    });
    const got = (await t.api('GET', `/projects/${projectId}/site-plan`, { headers: h() })).body.data;
    expect(Buffer.from(got.image, 'base64').equals(drawing)).toBe(true);
    expect(got.sha256).toBe(sha256);
  });

  it('refuses what is not a PNG or JPEG it can size, and keeps the plan in place', async () => {
    const refused = async (image: string, code: number) =>
      expectError(await t.api('PUT', `/projects/${projectId}/site-plan`, { headers: h(), body: { image } }), code, 'image');
    await refused(Buffer.from('GIF89a\x01\x00\x01\x00').toString('base64'), 422103);
    await refused(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64'), 422103);
    await refused(drawing.subarray(0, 20).toString('base64'), 422103);
    await refused(pngImage(6400, 2, () => [0, 0, 0, 255]).toString('base64'), 422103);
    await refused('not base64!', 422103);
    await refused('', 422101);
    expect((await t.api('GET', `/projects/${projectId}/site-plan`, { headers: h() })).body.data.sha256).toBe(
      createHash('sha256').update(drawing).digest('hex'),
    );
  });

  it('places points by hand, replacing every placement at once; a wrong entry changes nothing', async () => {
    const place = (positions: unknown) => t.api('PUT', `/projects/${projectId}/site-plan/positions`, { headers: h(), body: { positions } });
    const placed = await place([
      { point_id: points[1], x: 0.75, y: 0.5 },
      { point_id: points[0], x: 0.25, y: 0.125 },
    ]);
    expect(placed.status).toBe(200);
    const sorted = [
      { point_id: points[0], x: 0.25, y: 0.125 },
      { point_id: points[1], x: 0.75, y: 0.5 },
    ].sort((a, b) => a.point_id!.localeCompare(b.point_id!));
    expect(placed.body.data.positions).toEqual(sorted);
    expect(placed.body.data.image).toBeUndefined();

    // Each refusal names its entry, and the placements stay as they were.
    expectError(
      await place([
        { point_id: points[2], x: 0.5, y: 0.5 },
        { point_id: otherPoint, x: 0.1, y: 0.1 },
      ]),
      422104,
      'positions[1].point_id',
    );
    expectError(await place([{ point_id: points[2], x: 1.5, y: 0.5 }]), 422105, 'positions[0].x');
    expectError(await place([{ point_id: points[2], x: 0.5, y: -0.01 }]), 422105, 'positions[0].y');
    expectError(
      await place([
        { point_id: points[2], x: 0.5, y: 0.5 },
        { point_id: points[2], x: 0.6, y: 0.5 },
      ]),
      422204,
      'positions[1].point_id',
    );
    expectError(await place([{ point_id: 'not-an-id', x: 0.5, y: 0.5 }]), 400004, 'positions[0].point_id');
    expect((await t.api('GET', `/projects/${projectId}/site-plan`, { headers: h() })).body.data.positions).toEqual(sorted);

    // A point left out is taken off the plan; a deleted point leaves it.
    expect(
      (
        await place([
          { point_id: points[2], x: 0.5, y: 0.5 },
          { point_id: points[0], x: 0.2, y: 0.2 },
        ])
      ).status,
    ).toBe(200);
    expect((await t.api('DELETE', `/points/${points[2]}`, { headers: h() })).status).toBe(200);
    expect((await t.api('GET', `/projects/${projectId}/site-plan`, { headers: h() })).body.data.positions).toEqual([{ point_id: points[0], x: 0.2, y: 0.2 }]);
    // Placing on a project without a plan is 404040.
    expectError(
      await t.api('PUT', `/projects/${otherProjectId}/site-plan/positions`, { headers: h(), body: { positions: [{ point_id: otherPoint, x: 0, y: 0 }] } }),
      404040,
      'project_id',
    );
  });

  it('lets members read it, owners and editors change it, and shows nothing to an outsider', async () => {
    const token = await t.login();
    const make = async (username: string) => {
      const user = await must(
        t.api('POST', '/users', {
          headers: { authorization: `Bearer ${token}` },
          body: { username, password: `${username} password`, name: username, permissions: ['project:read', 'project:write'] },
        }),
      );
      const login = (await t.api('POST', '/auth/login', { body: { username, password: `${username} password`, grant_type: 'password' } })).body.data;
      return { id: user.id, auth: { authorization: `Bearer ${login.access_token}` } };
    };
    const viewer = await make('plan.viewer');
    const outsider = await make('plan.outsider');
    await must(t.api('POST', `/projects/${projectId}/members`, { headers: h(), body: { user_id: viewer.id, role: 'viewer' } }));
    const before = (await t.api('GET', `/projects/${projectId}/site-plan`, { headers: h() })).body.data;

    expect((await t.api('GET', `/projects/${projectId}/site-plan`, { headers: viewer.auth })).body.data.sha256).toBe(before.sha256);
    const other = pngImage(16, 16, () => [255, 0, 0, 255]).toString('base64');
    expectError(await t.api('PUT', `/projects/${projectId}/site-plan`, { headers: viewer.auth, body: { image: other } }), 403002, 'project_id');
    expectError(await t.api('DELETE', `/projects/${projectId}/site-plan`, { headers: viewer.auth }), 403002, 'project_id');
    expectError(await t.api('GET', `/projects/${projectId}/site-plan`, { headers: outsider.auth }), 403001, 'project_id');
    expectError(await t.api('PUT', `/projects/${projectId}/site-plan`, { headers: outsider.auth, body: { image: other } }), 403001, 'project_id');
    // Nothing changed by the refusals.
    expect((await t.api('GET', `/projects/${projectId}/site-plan`, { headers: h() })).body.data).toEqual(before);
  });

  it('is removed with its placements, and goes with its project', async () => {
    const removed = await t.api('DELETE', `/projects/${projectId}/site-plan`, { headers: h() });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ project_id: projectId, deleted: true });
    expectError(await t.api('GET', `/projects/${projectId}/site-plan`, { headers: h() }), 404040, 'project_id');
    expect(await rows('SELECT count(*)::int AS n FROM projects.site_plan_positions WHERE project_id = $1', [projectId])).toEqual([{ n: 0 }]);

    expect((await t.api('PUT', `/projects/${otherProjectId}/site-plan`, { headers: h(), body: { image: drawing.toString('base64') } })).status).toBe(200);
    expect((await t.api('DELETE', `/projects/${otherProjectId}`, { headers: h() })).status).toBe(200);
    expect(await rows('SELECT count(*)::int AS n FROM projects.site_plans WHERE project_id = $1', [otherProjectId])).toEqual([{ n: 0 }]);
  });
});
