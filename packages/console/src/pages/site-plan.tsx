import { useRef, useState } from 'preact/hooks';
import { api, ApiError, type Json, type Page } from '../api';
import { pointState } from '../alarm-state';
import { href } from '../router';
import { ErrorNotice, useAction, useLoad } from '../ui';
import { inZone } from '../time';

const WIDTH = 1000;
// Room around the outermost points for their labels, also at phone width where they are drawn larger.
const MARGIN = 90;

/** A point drawn on the plan at (x, y) of the drawing's coordinates, coloured by its state, linking to its chart. */
function PlanPoint({ p, x, y, zone }: { p: Json; x: number; y: number; zone: string }) {
  const state = pointState(p);
  return (
    <a href={href('points', p.id)} class={`plan-point ${state.cls}`} aria-label={`${p.number} ${p.name}: ${state.text}`}>
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
}

/** The project's drawing, or null when it has none (404040). */
const loadPlan = (projectId: string) =>
  api.getSitePlan(projectId).catch((e: unknown) => {
    if (e instanceof ApiError && e.code === 404040) return null;
    throw e;
  });

/** A file as base64 (what PUT …/site-plan takes). */
const base64Of = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });

/**
 * A project's points on a plan, each coloured by its state now (GET /projects/{id}/points:
 * `status`, `stale`) and linking to its chart. With an uploaded drawing (ADR 0121) the points sit
 * where someone placed them by hand (choose a point, click its place on the drawing); without one,
 * by their reference coordinates (x east, y north, metres; north up), keeping the site's
 * proportions. The project page reads the points and passes them in.
 */
export function SitePlan({ projectId, points, zone }: { projectId: string; points: ReturnType<typeof useLoad<Page<Json>>>; zone: string }) {
  const plan = useLoad(() => loadPlan(projectId), [projectId]);
  const all = points.data?.items ?? [];
  const drawing = plan.data;
  // On a drawing: the placed points; by coordinates: those with a reference (instrument points may have none).
  const placed = new Map<string, { x: number; y: number }>((drawing?.positions ?? []).map((q: Json) => [q.point_id, q]));
  const items = drawing ? all.filter((p) => placed.has(p.id)) : all.filter((p) => p.reference);
  const counts = new Map<string, number>();
  for (const p of items) counts.set(pointState(p).cls, (counts.get(pointState(p).cls) ?? 0) + 1);
  return (
    <div class="card">
      <h2 id="site-plan">Site plan</h2>
      <ErrorNotice error={points.error ?? plan.error} />
      {drawing ? (
        <Drawing projectId={projectId} plan={drawing} points={all} placed={placed} zone={zone} onChanged={plan.reload} />
      ) : (
        <>
          {items.length === 0 && points.data && plan.data === null && (
            <p class="muted">No points with coordinates yet: add them below, or upload a drawing of the site and place the points on it.</p>
          )}
          {items.length > 0 && <ByCoordinates items={items} zone={zone} />}
        </>
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
      {plan.data !== undefined && <DrawingUpload projectId={projectId} hasDrawing={!!drawing} onChanged={plan.reload} />}
    </div>
  );
}

function ByCoordinates({ items, zone }: { items: Json[]; zone: string }) {
  const { height, place } = layout(items);
  return (
    <svg class="site-plan" viewBox={`0 0 ${WIDTH} ${height}`} role="group" aria-labelledby="site-plan">
      {/* bottom left: points keep a margin from the edges, and labels sit above their point */}
      <text x={16} y={height - 16} class="north">
        N ↑
      </text>
      {items.map((p) => {
        const [x, y] = place(p);
        return <PlanPoint key={p.id} p={p} x={x} y={y} zone={zone} />;
      })}
    </svg>
  );
}

/**
 * The uploaded drawing, scaled to the plan's width, with the placed points on it. Placing: pick a
 * point, then click its place; the placements are sent whole (PUT …/site-plan/positions).
 */
function Drawing(props: { projectId: string; plan: Json; points: Json[]; placed: Map<string, { x: number; y: number }>; zone: string; onChanged: () => void }) {
  const { projectId, plan, points, placed, zone, onChanged } = props;
  const height = Math.round((WIDTH * plan.height) / plan.width);
  const svg = useRef<SVGSVGElement>(null);
  const [placing, setPlacing] = useState('');
  const save = useAction();
  const send = (next: Map<string, { x: number; y: number }>) =>
    save.run(async () => {
      await api.placeOnSitePlan(
        projectId,
        [...next].map(([point_id, q]) => ({ point_id, x: q.x, y: q.y })),
      );
      onChanged();
    });
  const click = (e: MouseEvent) => {
    if (!placing || !svg.current) return;
    e.preventDefault();
    // The click in the drawing's own coordinates, whatever the plan's size on screen.
    const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.current.getScreenCTM()!.inverse());
    const round = (v: number) => Math.min(1, Math.max(0, Math.round(v * 10_000) / 10_000));
    const next = new Map(placed);
    next.set(placing, { x: round(at.x / WIDTH), y: round(at.y / height) });
    void send(next);
  };
  const unplaced = points.filter((p) => !placed.has(p.id));
  return (
    <>
      <svg
        ref={svg}
        class={`site-plan${placing ? ' placing' : ''}`}
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="group"
        aria-labelledby="site-plan"
        onClick={click}
      >
        <image href={`data:${plan.content_type};base64,${plan.image}`} x={0} y={0} width={WIDTH} height={height} />
        {points
          .filter((p) => placed.has(p.id))
          .map((p) => {
            const q = placed.get(p.id)!;
            return <PlanPoint key={p.id} p={p} x={q.x * WIDTH} y={q.y * height} zone={zone} />;
          })}
      </svg>
      {unplaced.length > 0 && (
        <p class="muted small">
          Not on the drawing yet:{' '}
          {unplaced
            .map((p) => p.number as string)
            .sort()
            .join(', ')}
          .
        </p>
      )}
      <ErrorNotice error={save.error} />
      <div class="controls">
        <div class="field">
          <label for="plan-place">Place a point on the drawing</label>
          <select id="plan-place" value={placing} onChange={(e) => setPlacing((e.target as HTMLSelectElement).value)}>
            <option value="">choose a point, then click its place</option>
            {points.map((p) => (
              <option key={p.id} value={p.id}>
                {p.number} {p.name}
                {placed.has(p.id) ? ' (placed)' : ''}
              </option>
            ))}
          </select>
        </div>
        {placing && placed.has(placing) && (
          <button
            type="button"
            disabled={save.busy}
            onClick={() => {
              const next = new Map(placed);
              next.delete(placing);
              void send(next);
            }}
          >
            Take it off the drawing
          </button>
        )}
      </div>
    </>
  );
}

/** Upload (or replace) the drawing, or remove it: owners and editors; the API refuses anyone else. */
function DrawingUpload({ projectId, hasDrawing, onChanged }: { projectId: string; hasDrawing: boolean; onChanged: () => void }) {
  const upload = useAction();
  return (
    <div class="controls">
      <ErrorNotice error={upload.error} />
      <div class="field">
        <label for="plan-file">{hasDrawing ? 'Replace the drawing (PNG or JPEG, placements kept)' : 'Upload a drawing of the site (PNG or JPEG)'}</label>
        <input
          id="plan-file"
          type="file"
          accept="image/png,image/jpeg"
          disabled={upload.busy}
          onChange={(e) => {
            const input = e.target as HTMLInputElement;
            const file = input.files?.[0];
            if (!file) return;
            void upload.run(async () => {
              await api.putSitePlan(projectId, await base64Of(file));
              input.value = '';
              onChanged();
            });
          }}
        />
      </div>
      {hasDrawing && (
        <button type="button" disabled={upload.busy} onClick={() => upload.run(async () => (await api.deleteSitePlan(projectId), onChanged()))}>
          Remove the drawing
        </button>
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
