import type { Json, Page } from '../api';
import { pointState } from '../alarm-state';
import { href } from '../router';
import { ErrorNotice, useLoad } from '../ui';
import { inZone } from '../time';

const WIDTH = 1000;
// Room around the outermost points for their labels, also at phone width where they are drawn larger.
const MARGIN = 90;

/**
 * A project's points placed by their reference coordinates (x east, y north, metres; north up),
 * each coloured by its state now (GET /projects/{id}/points: `status`, `stale`) and linking to
 * its chart. The drawing keeps the site's proportions; a site that is a line (all points on one
 * x or one y) is drawn as one. The project page reads the points and passes them in.
 */
export function SitePlan({ points, zone }: { points: ReturnType<typeof useLoad<Page<Json>>>; zone: string }) {
  // Instrument points may have no reference coordinates (docs/instruments.md): they have no place on the plan.
  const items = (points.data?.items ?? []).filter((p) => p.reference);
  const { height, place } = layout(items);
  const counts = new Map<string, number>();
  for (const p of items) counts.set(pointState(p).cls, (counts.get(pointState(p).cls) ?? 0) + 1);
  return (
    <div class="card">
      <h2 id="site-plan">Site plan</h2>
      <ErrorNotice error={points.error} />
      {items.length === 0 && points.data && <p class="muted">No points yet: add them below with their reference coordinates.</p>}
      {items.length > 0 && (
        <svg class="site-plan" viewBox={`0 0 ${WIDTH} ${height}`} role="group" aria-labelledby="site-plan">
          {/* bottom left: points keep a margin from the edges, and labels sit above their point */}
          <text x={16} y={height - 16} class="north">
            N ↑
          </text>
          {items.map((p) => {
            const [x, y] = place(p);
            const state = pointState(p);
            return (
              <a key={p.id} href={href('points', p.id)} class={`plan-point ${state.cls}`} aria-label={`${p.number} ${p.name}: ${state.text}`}>
                <title>
                  {p.number} · {p.name}: {state.text}
                  {p.last_measured_at ? `, last reading ${inZone(p.last_measured_at, zone)}` : ''}
                </title>
                <circle cx={x} cy={y} r={14} />
                <text x={x} y={y - 22} text-anchor="middle">
                  {p.number}
                </text>
              </a>
            );
          })}
        </svg>
      )}
      {items.length > 0 && (
        <ul class="legend" aria-label="Legend">
          {(['level-normal', 'level-warning', 'level-alarm', 'stale', 'nodata'] as const).map((cls) => (
            <li key={cls}>
              <span class={`swatch ${cls}`} aria-hidden="true" />
              {LEGEND[cls]} ({counts.get(cls) ?? 0})
            </li>
          ))}
          {[...counts.keys()]
            .filter((cls) => !(cls in LEGEND))
            .map((cls) => (
              <li key={cls}>
                <span class={`swatch ${cls}`} aria-hidden="true" />
                {cls.replace('level-', '')} ({counts.get(cls)})
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}

const LEGEND: Record<string, string> = {
  'level-normal': 'normal',
  'level-warning': 'warning',
  'level-alarm': 'alarm',
  stale: 'stale (no recent reading)',
  nodata: 'no data yet',
};

/** Scales the points' x/y into the drawing, north up, keeping the site's proportions. */
function layout(points: Json[]): { height: number; place: (p: Json) => [number, number] } {
  if (!points.length) return { height: 400, place: () => [0, 0] };
  const xs = points.map((p) => p.reference.x as number);
  const ys = points.map((p) => p.reference.y as number);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const spanX = maxX - minX;
  const spanY = maxY - minY;
  const inner = WIDTH - 2 * MARGIN;
  const scale = Math.max(spanX, spanY) > 0 ? inner / Math.max(spanX, spanY) : 0;
  // A site much wider than deep still gets room for labels above and below.
  const height = Math.max(400, Math.round(spanY * scale) + 2 * MARGIN);
  const offsetX = (WIDTH - spanX * scale) / 2;
  const offsetY = (height - spanY * scale) / 2;
  return {
    height,
    place: (p) => [offsetX + (p.reference.x - minX) * scale, height - (offsetY + (p.reference.y - minY) * scale)],
  };
}
