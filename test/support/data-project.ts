import type { ApiResponse } from '@mp/testing';

type Api = (method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string> }) => Promise<ApiResponse>;

/**
 * A project that takes monitoring data, set up through the public API only: created, put in
 * progress, with one point (warning 10 mm, alarm 20 mm). For tests about what a data write causes.
 */
export async function dataProject(api: Api, headers: Record<string, string>): Promise<{ projectId: string; pointId: string }> {
  const must = async (res: Promise<ApiResponse>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`set-up call failed: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const project = await must(
    api('POST', '/projects', { headers, body: { name: 'Metro Line 4 tunnel', number: `ML4-${Date.now()}`, start_date: '2026-01-01' } }),
  );
  await must(api('PUT', `/projects/${project.id}/status`, { headers, body: { status: 'in_progress' } }));
  const point = await must(
    api('POST', `/projects/${project.id}/points`, {
      headers,
      body: {
        number: 'JC-01',
        name: 'Crown settlement JC-01',
        sensor_type: 'total_station',
        reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
        thresholds: { warning: 10, alarm: 20 },
      },
    }),
  );
  return { projectId: project.id, pointId: point.id };
}

/** One record of `point` at `measuredAt`, displaced `dz` mm. */
export const recordAt = (pointId: string, measuredAt: string, dz = 1) => ({ point_id: pointId, measured_at: measuredAt, values: { dz } });
