import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { Json } from './api';

type Axis = 'dx' | 'dy' | 'dz';
const AXES: Axis[] = ['dx', 'dy', 'dz'];

/** uPlot's columns: bucket starts (s) and the average dx, dy, dz of each bucket that has readings. */
function toData(series: Json): uPlot.AlignedData {
  const buckets: Json[] = series.buckets.filter((b: Json) => b.count > 0);
  const col = (k: Axis) => buckets.map((b) => (b[k] ? b[k].avg : null));
  return [buckets.map((b) => Date.parse(b.start) / 1000), col('dx'), col('dy'), col('dz')];
}

/**
 * The reading furthest from zero in the range, from the buckets' minima and maxima: what a bucket
 * average hides (one spike among many normal readings) and the envelope shows.
 */
export function extremeOf(series: Json): { axis: Axis; value: number; start: string } | null {
  let best: { axis: Axis; value: number; start: string } | null = null;
  for (const b of series.buckets as Json[]) {
    if (!b.count) continue;
    for (const axis of AXES) {
      for (const value of b[axis] ? [b[axis].min as number, b[axis].max as number] : []) {
        if (best === null || Math.abs(value) > Math.abs(best.value)) best = { axis, value, start: b.start };
      }
    }
  }
  return best;
}

/** The lowest and highest reading of any component in the series (0 when empty). */
function envelopeRange(series: Json): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const b of series.buckets as Json[])
    for (const k of AXES)
      if (b.count > 0 && b[k]) {
        min = Math.min(min, b[k].min);
        max = Math.max(max, b[k].max);
      }
  return { min, max };
}

const COLORS = { dx: '#0969da', dy: '#8250df', dz: '#bf3989' };
const ENVELOPES = { dx: 'rgba(9, 105, 218, 0.14)', dy: 'rgba(130, 80, 223, 0.14)', dz: 'rgba(191, 57, 137, 0.14)' };

/**
 * The time history of dx, dy, dz (bucket averages, mm), each line in the shaded envelope of its
 * buckets' lowest and highest readings (so a single spike stays visible however wide the
 * buckets), with the point's warning and alarm bands drawn behind (±warning amber, beyond ±alarm
 * red). Dragging across the chart selects a
 * time range: `onZoom` receives it and the page asks the series endpoint for that range, so the
 * buckets get finer as the range narrows (years down to minutes).
 */
export function SeriesChart({
  series,
  thresholds,
  onZoom,
}: {
  series: Json;
  thresholds: { warning: number; alarm: number };
  onZoom: (from: Date, to: Date) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const zoom = useRef(onZoom);
  zoom.current = onZoom;
  // The plot is made once per threshold pair and given new data in place: a refresh every few
  // seconds must not tear down the chart under a drag in progress.
  const plotRef = useRef<uPlot | null>(null);
  const seriesRef = useRef(series);
  seriesRef.current = series;
  useEffect(() => {
    const el = box.current!;
    const bands = (u: uPlot) => {
      const { ctx } = u;
      const { left, width, top, height } = u.bbox;
      const y = (v: number) => u.valToPos(v, 'y', true);
      ctx.save();
      ctx.beginPath();
      ctx.rect(left, top, width, height);
      ctx.clip();
      const band = (from: number, to: number, color: string) => {
        const a = y(from);
        const b = y(to);
        ctx.fillStyle = color;
        ctx.fillRect(left, Math.min(a, b), width, Math.abs(b - a));
      };
      const { warning, alarm } = thresholds;
      const far = Math.max(Math.abs(u.scales.y.max ?? 0), Math.abs(u.scales.y.min ?? 0), alarm) * 4;
      band(warning, alarm, 'rgba(212, 167, 44, 0.18)');
      band(-warning, -alarm, 'rgba(212, 167, 44, 0.18)');
      band(alarm, far, 'rgba(207, 34, 46, 0.14)');
      band(-alarm, -far, 'rgba(207, 34, 46, 0.14)');
      // Each component's envelope: its buckets' maxima left to right, then minima back.
      const buckets: Json[] = seriesRef.current.buckets.filter((b: Json) => b.count > 0);
      for (const k of AXES) {
        const with_ = buckets.filter((b) => b[k]);
        if (!with_.length) continue;
        const x = (b: Json) => u.valToPos(Date.parse(b.start) / 1000, 'x', true);
        ctx.beginPath();
        with_.forEach((b, i) => (i ? ctx.lineTo(x(b), y(b[k].max)) : ctx.moveTo(x(b), y(b[k].max))));
        for (const b of [...with_].reverse()) ctx.lineTo(x(b), y(b[k].min));
        ctx.closePath();
        ctx.fillStyle = ENVELOPES[k];
        ctx.fill();
        // its edge drawn stronger, so an envelope one bucket wide (a lone spike) is still seen
        ctx.strokeStyle = COLORS[k];
        ctx.globalAlpha = 0.5;
        ctx.lineWidth = 3;
        ctx.stroke();
        ctx.globalAlpha = 1;
      }
      ctx.restore();
    };
    const width = Math.max(320, el.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 320,
        title: 'Displacement (mm), bucket averages within their min–max envelope',
        scales: {
          x: { time: true, range: () => [Date.parse(seriesRef.current.from) / 1000, Date.parse(seriesRef.current.to) / 1000] },
          // wide enough for the envelope too, so a spike hidden by its bucket's average stays in view
          y: {
            range: (_u, min, max) => {
              const e = envelopeRange(seriesRef.current);
              const lo = Math.min(min ?? 0, e.min);
              const hi = Math.max(max ?? 0, e.max);
              return [Math.min(lo * 1.1, -thresholds.alarm * 1.2), Math.max(hi * 1.1, thresholds.alarm * 1.2)];
            },
          },
        },
        axes: [{}, { label: 'mm' }],
        series: [
          { label: 'Time (UTC)', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 16).replace('T', ' ')) },
          { label: 'dx', stroke: COLORS.dx, width: 2, spanGaps: true },
          { label: 'dy', stroke: COLORS.dy, width: 2, spanGaps: true },
          { label: 'dz', stroke: COLORS.dz, width: 2, spanGaps: true },
        ],
        cursor: { drag: { x: true, y: false } },
        hooks: {
          drawClear: [bands],
          setSelect: [
            (u) => {
              if (u.select.width < 4) return;
              const from = u.posToVal(u.select.left, 'x');
              const to = u.posToVal(u.select.left + u.select.width, 'x');
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
              zoom.current(new Date(from * 1000), new Date(to * 1000));
            },
          ],
        },
      },
      toData(seriesRef.current),
      el,
    );
    plotRef.current = plot;
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height: 320 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, [thresholds.warning, thresholds.alarm]);
  useEffect(() => plotRef.current?.setData(toData(series)), [series]);
  const extreme = extremeOf(series);
  const furthest = extreme ? `; the reading furthest from zero is ${extreme.axis} ${extreme.value} mm, in the bucket from ${extreme.start}` : '';
  return (
    <div
      ref={box}
      class="chart"
      role="img"
      aria-label={`Chart of dx, dy and dz from ${series.from} to ${series.to}, bucket averages in a shaded band from each bucket's lowest to highest reading; warning band at ±${thresholds.warning} mm, alarm beyond ±${thresholds.alarm} mm${furthest}`}
    />
  );
}

/** A line colour per compared point (up to MAX_COMPARED), told apart in colour and in the legend. */
const PALETTE = ['#0969da', '#bf3989', '#1a7f37', '#9a6700', '#8250df', '#cf222e', '#0550ae', '#6e7781'];
export const MAX_COMPARED = PALETTE.length;

/**
 * Several points' bucket averages of one component on one chart (points of a section, side by
 * side). Every series was asked for with the same range and bucket count, so the buckets of all
 * points start at the same instants; a point without readings in a bucket leaves a gap.
 */
export function CompareChart({ component, lines }: { component: Axis; lines: { label: string; series: Json }[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const starts = [...new Set(lines.flatMap((l) => (l.series.buckets as Json[]).filter((b) => b.count > 0).map((b) => Date.parse(b.start) / 1000)))].sort(
      (a, b) => a - b,
    );
    const columns = lines.map((l) => {
      const at = new Map(
        (l.series.buckets as Json[]).filter((b) => b.count > 0 && b[component]).map((b) => [Date.parse(b.start) / 1000, b[component].avg as number]),
      );
      return starts.map((s) => at.get(s) ?? null);
    });
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 320,
        title: `${component} (mm) of ${lines.length} points, bucket averages`,
        axes: [{}, { label: 'mm' }],
        series: [
          { label: 'Time (UTC)', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 16).replace('T', ' ')) },
          ...lines.map((l, i) => ({ label: l.label, stroke: PALETTE[i % PALETTE.length], width: 2, spanGaps: true })),
        ],
      },
      [starts, ...columns],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height: 320 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [component, lines]);
  return (
    <div ref={box} class="chart" role="img" aria-label={`Chart of ${component} of ${lines.map((l) => l.label).join(', ')}: bucket averages, one line each`} />
  );
}

const LEVEL_COLORS: Record<string, string> = { warning: '#d4a72c', alarm: '#cf222e', action: '#82071e' };

/**
 * The time history of one channel of an instrument point (docs/instruments.md): bucket averages
 * in the shaded envelope of the buckets' lowest and highest readings, the channel's unit on the
 * value axis, and each trigger level set on the channel drawn as a dashed line at its limit.
 * Dragging selects a time range, as on SeriesChart.
 */
export function ChannelChart({
  series,
  levels,
  onZoom,
}: {
  series: Json;
  levels: { level: string; above?: number | null; below?: number | null }[];
  onZoom: (from: Date, to: Date) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const zoom = useRef(onZoom);
  zoom.current = onZoom;
  const plotRef = useRef<uPlot | null>(null);
  const seriesRef = useRef(series);
  seriesRef.current = series;
  const limits = levels.flatMap((l) => [l.above, l.below].filter((v): v is number => typeof v === 'number').map((v) => ({ level: l.level, v })));
  const key = `${series.channel} ${series.unit} ${limits.map((l) => `${l.level}:${l.v}`).join(',')}`;
  useEffect(() => {
    const el = box.current!;
    const draw = (u: uPlot) => {
      const { ctx } = u;
      const { left, width, top, height } = u.bbox;
      const y = (v: number) => u.valToPos(v, 'y', true);
      ctx.save();
      ctx.beginPath();
      ctx.rect(left, top, width, height);
      ctx.clip();
      const buckets: Json[] = seriesRef.current.buckets.filter((b: Json) => b.count > 0);
      if (buckets.length) {
        const x = (b: Json) => u.valToPos(Date.parse(b.start) / 1000, 'x', true);
        ctx.beginPath();
        buckets.forEach((b, i) => (i ? ctx.lineTo(x(b), y(b.max)) : ctx.moveTo(x(b), y(b.max))));
        for (const b of [...buckets].reverse()) ctx.lineTo(x(b), y(b.min));
        ctx.closePath();
        ctx.fillStyle = 'rgba(9, 105, 218, 0.14)';
        ctx.fill();
      }
      ctx.setLineDash([6, 4]);
      ctx.lineWidth = 2;
      for (const l of limits) {
        ctx.strokeStyle = LEVEL_COLORS[l.level] ?? '#57606a';
        ctx.beginPath();
        ctx.moveTo(left, y(l.v));
        ctx.lineTo(left + width, y(l.v));
        ctx.stroke();
      }
      ctx.restore();
    };
    const unit = seriesRef.current.unit || '';
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 320,
        title: `${seriesRef.current.channel}${unit ? ` (${unit})` : ''}, bucket averages within their min–max envelope`,
        scales: {
          x: { time: true, range: () => [Date.parse(seriesRef.current.from) / 1000, Date.parse(seriesRef.current.to) / 1000] },
          // the envelope and every trigger level in view
          y: {
            range: (_u, min, max) => {
              const values = [...limits.map((l) => l.v)];
              for (const b of seriesRef.current.buckets as Json[]) if (b.count > 0) values.push(b.min, b.max);
              let lo = Math.min(min ?? Infinity, ...values);
              let hi = Math.max(max ?? -Infinity, ...values);
              if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
              const pad = (hi - lo || Math.abs(hi) || 1) * 0.1;
              return [lo - pad, hi + pad];
            },
          },
        },
        axes: [{}, { label: unit }],
        series: [
          { label: 'Time (UTC)', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 16).replace('T', ' ')) },
          { label: `${seriesRef.current.channel}${unit ? ` (${unit})` : ''}`, stroke: '#0969da', width: 2, spanGaps: true },
        ],
        cursor: { drag: { x: true, y: false } },
        hooks: {
          drawClear: [draw],
          setSelect: [
            (u) => {
              if (u.select.width < 4) return;
              const from = u.posToVal(u.select.left, 'x');
              const to = u.posToVal(u.select.left + u.select.width, 'x');
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
              zoom.current(new Date(from * 1000), new Date(to * 1000));
            },
          ],
        },
      },
      channelData(seriesRef.current),
      el,
    );
    plotRef.current = plot;
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height: 320 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
      plotRef.current = null;
    };
  }, [key]);
  useEffect(() => plotRef.current?.setData(channelData(series)), [series]);
  const unit = series.unit ? ` ${series.unit}` : '';
  const drawn = limits.length
    ? `; trigger levels drawn: ${limits.map((l) => `${l.level} at ${l.v}${unit}`).join(', ')}`
    : '; no trigger levels on this channel';
  return (
    <div
      ref={box}
      class="chart"
      role="img"
      aria-label={`Chart of ${series.channel}${series.unit ? ` in ${series.unit}` : ''} from ${series.from} to ${series.to}, bucket averages in a shaded band from each bucket's lowest to highest reading${drawn}`}
    />
  );
}

/** uPlot's columns of a channel series: bucket starts (s) and averages. */
function channelData(series: Json): uPlot.AlignedData {
  const buckets: Json[] = series.buckets.filter((b: Json) => b.count > 0);
  return [buckets.map((b) => Date.parse(b.start) / 1000), buckets.map((b) => b.avg)];
}
