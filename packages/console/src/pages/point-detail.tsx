import { useEffect, useState } from 'preact/hooks';
import { api, type Json } from '../api';
import { sensorTypeSpec } from '@mp/contracts/vocabulary';
import { ChannelChart, extremeOf, SeriesChart } from '../chart';
import { PointEditForm } from './point-edit';
import { PointReadings } from './point-readings';
import { PointCalibrations } from './point-calibrations';
import { inZone } from '../time';
import { href } from '../router';
import { label } from '../transitions';
import { Badge, ErrorNotice, PageTitle, useAction, useLoad } from '../ui';

const RANGES: [string, number][] = [
  ['1 year', 365 * 86400],
  ['30 days', 30 * 86400],
  ['7 days', 7 * 86400],
  ['1 day', 86400],
  ['6 hours', 6 * 3600],
  ['1 hour', 3600],
  ['15 minutes', 900],
];
/** While the range ends now, the page reads the point again every few seconds: new data appears on its own. */
const LIVE_REFRESH_MS = 5000;

const readings = (n: number) => `${n} reading${n === 1 ? '' : 's'}`;

type Range = { span: number; to: Date | null; from?: Date };

export function PointDetail({ pointId }: { pointId: string }) {
  const point = useLoad(() => api.getPoint(pointId), [pointId]);
  const [range, setRange] = useState<Range>({ span: 30 * 86400, to: null });
  const [tick, setTick] = useState(0);
  const p = point.data;
  // An instrument point charts one channel at a time, its type's primary one first (docs/instruments.md).
  const spec = p ? sensorTypeSpec(p.sensor_type) : undefined;
  const instrument = spec && !spec.geodetic ? spec : undefined;
  const [chosen, setChosen] = useState<string | null>(null);
  const channel = instrument ? (chosen ?? instrument.primary) : undefined;
  const series = useLoad(() => {
    // wait for the point: an instrument's series is asked for by channel
    if (!p) return Promise.resolve(undefined);
    const to = range.to ?? new Date();
    const from = range.from ?? new Date(to.getTime() - range.span * 1000);
    return api.getSeries(pointId, { from: from.toISOString(), to: to.toISOString(), buckets: 300, ...(channel ? { channel } : {}) });
  }, [pointId, range, tick, p?.sensor_type, channel]);
  const latest = useLoad(() => api.listPointData(pointId, { limit: 5, order: 'desc' }), [pointId, tick]);
  const project = useLoad(() => (p ? api.getProject(p.project_id) : Promise.resolve(undefined)), [p?.project_id]);
  // Every time on this page is shown in the project's zone, named (docs/console.md).
  const zone: string = project.data?.time_zone ?? 'UTC';
  const when = (iso: string | null | undefined) => inZone(iso, zone);
  const alarms = useLoad(
    () => (p ? api.listAlarms(p.project_id, { point_id: pointId, status: 'open' }) : Promise.resolve(undefined)),
    [p?.project_id, pointId, tick],
  );
  const acknowledged = useLoad(
    () => (p ? api.listAlarms(p.project_id, { point_id: pointId, status: 'acknowledged' }) : Promise.resolve(undefined)),
    [p?.project_id, pointId, tick],
  );
  const change = useAction();
  const [comment, setComment] = useState('');
  const [editing, setEditing] = useState(false);

  useEffect(() => {
    if (range.to) return;
    const t = setInterval(() => setTick((n) => n + 1), LIVE_REFRESH_MS);
    return () => clearInterval(t);
  }, [range.to]);

  const openAlarms = [...(alarms.data?.items ?? []), ...(acknowledged.data?.items ?? [])];
  const act = (a: Json, step: 'acknowledge' | 'clear') =>
    change.run(async () => {
      await (step === 'acknowledge' ? api.acknowledgeAlarm(a.alarm_id, comment || undefined) : api.clearAlarm(a.alarm_id, comment || undefined));
      setComment('');
      setTick((n) => n + 1);
    });

  return (
    <section>
      <p class="crumbs">
        <a href={href('projects')}>Projects</a> › {p && <a href={href('projects', p.project_id)}>Project</a>} ›
      </p>
      <PageTitle>{p ? `Point ${p.number} · ${p.name}` : 'Point'}</PageTitle>
      <ErrorNotice error={point.error} />
      {p && (
        <p class="muted">
          {label(p.sensor_type)}
          {/* Instruments have neither displacement thresholds nor reference coordinates (docs/instruments.md). */}
          {p.thresholds && ` · warning at ±${p.thresholds.warning} mm · alarm at ±${p.thresholds.alarm} mm`}
          {p.reference && ` · reference (${p.reference.x}, ${p.reference.y}, ${p.reference.z}) m`}
          {p.trigger_levels?.length > 0 &&
            ` · trigger levels: ${p.trigger_levels
              .map((t: Json) => `${t.level} ${t.channel}${t.above != null ? ` above ${t.above}` : ''}${t.below != null ? ` below ${t.below}` : ''}`)
              .join('; ')}`}{' '}
          {!editing && (
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
        </p>
      )}
      {p && editing && (
        <PointEditForm
          key={p.version}
          point={p}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            point.reload();
          }}
        />
      )}
      <div class="card">
        <h2 id="history">Time history</h2>
        <div class="actions" role="group" aria-label="Time range">
          {RANGES.map(([name, span]) => (
            <button key={name} type="button" aria-pressed={!range.to && !range.from && range.span === span} onClick={() => setRange({ span, to: null })}>
              {name}
            </button>
          ))}
          {range.to && (
            <button type="button" onClick={() => setRange({ span: 30 * 86400, to: null })}>
              Back to live
            </button>
          )}
        </div>
        {instrument && (
          <div class="field">
            <label for="series-channel">Channel</label>
            <select id="series-channel" value={channel} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
              {instrument.channels.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name} ({c.unit})
                </option>
              ))}
            </select>
          </div>
        )}
        <p class="muted small">Drag across the chart to zoom into a time range.{!range.to && ' The chart follows new data as it arrives.'}</p>
        <ErrorNotice error={series.error} />
        {series.data && p && series.data.channel !== undefined && instrument && (
          <>
            <ChannelChart
              series={series.data}
              levels={(p.trigger_levels ?? []).filter((t: Json) => t.channel === series.data.channel)}
              onZoom={(from, to) => setRange({ span: (to.getTime() - from.getTime()) / 1000, from, to })}
            />
            <p class="small muted" id="series-summary" aria-live="polite">
              {readings(series.data.buckets.reduce((n: number, b: Json) => n + b.count, 0))} of {series.data.channel} ({series.data.unit}) from{' '}
              {when(series.data.from)} to {when(series.data.to)}, in buckets of {series.data.interval_seconds} s.
            </p>
          </>
        )}
        {series.data && p && !instrument && (
          <>
            <SeriesChart
              series={series.data}
              thresholds={p.thresholds ?? { warning: 0, alarm: 0 }}
              onZoom={(from, to) => setRange({ span: (to.getTime() - from.getTime()) / 1000, from, to })}
            />
            <p class="small muted" id="series-summary" aria-live="polite">
              {readings(series.data.buckets.reduce((n: number, b: Json) => n + b.count, 0))} from {when(series.data.from)} to {when(series.data.to)}, in buckets
              of {series.data.interval_seconds} s.
            </p>
            <Extreme series={series.data} when={when} />
          </>
        )}
      </div>

      <div class="card">
        <h2 id="latest">Latest values</h2>
        <table>
          <caption>The newest readings of this point</caption>
          <thead>
            <tr>
              <th scope="col">Measured at</th>
              {instrument ? (
                instrument.channels.map((c) => (
                  <th key={c.name} scope="col">
                    {c.name} ({c.unit})
                  </th>
                ))
              ) : (
                <>
                  <th scope="col">dx (mm)</th>
                  <th scope="col">dy (mm)</th>
                  <th scope="col">dz (mm)</th>
                </>
              )}
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {latest.data?.items.map((r) => (
              <tr key={r.data_id}>
                <th scope="row">{when(r.measured_at)}</th>
                {instrument ? (
                  instrument.channels.map((c) => <td key={c.name}>{r.values[c.name] ?? '—'}</td>)
                ) : (
                  <>
                    <td>{r.values.dx ?? '—'}</td>
                    <td>{r.values.dy ?? '—'}</td>
                    <td>{r.values.dz ?? '—'}</td>
                  </>
                )}
                <td>
                  <Badge tone={r.status === 'normal' ? 'good' : r.status === 'warning' ? 'warn' : 'bad'}>{r.status}</Badge>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {latest.data && latest.data.items.length === 0 && <p class="muted">No readings yet.</p>}
      </div>

      {p && project.data && <PointReadings point={p} zone={zone} tick={tick} onChanged={() => setTick((n) => n + 1)} />}
      {p && project.data && <PointCalibrations point={p} zone={zone} onChanged={() => setTick((n) => n + 1)} />}

      <div class="card">
        <h2 id="alarms">Open alarms</h2>
        <ErrorNotice error={change.error ?? alarms.error} />
        <div class="field">
          <label for="alarm-comment">Comment for acknowledge or clear (optional)</label>
          <input id="alarm-comment" value={comment} onInput={(e) => setComment((e.target as HTMLInputElement).value)} />
        </div>
        <table>
          <caption>Alarms of this point not yet cleared</caption>
          <thead>
            <tr>
              <th scope="col">Opened</th>
              <th scope="col">Level</th>
              <th scope="col">Reason</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {openAlarms.map((a) => (
              <tr key={a.alarm_id}>
                <th scope="row">{when(a.opened_at)}</th>
                <td>
                  <Badge tone={a.level === 'alarm' ? 'bad' : 'warn'}>{a.level}</Badge>
                </td>
                <td>{a.reason}</td>
                <td>{a.status}</td>
                <td class="actions">
                  {a.status === 'open' && (
                    <button
                      type="button"
                      disabled={change.busy}
                      aria-label={`Acknowledge alarm opened ${when(a.opened_at)}`}
                      onClick={() => act(a, 'acknowledge')}
                    >
                      Acknowledge
                    </button>
                  )}
                  <button type="button" disabled={change.busy} aria-label={`Clear alarm opened ${when(a.opened_at)}`} onClick={() => act(a, 'clear')}>
                    Clear
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {alarms.data && openAlarms.length === 0 && <p class="muted">No open alarms.</p>}
      </div>
    </section>
  );
}

/** The reading furthest from zero in the chart's range, which a bucket average may hide. */
function Extreme({ series, when }: { series: Json; when: (iso: string) => string }) {
  const e = extremeOf(series);
  if (!e) return null;
  return (
    <p class="small muted" id="series-extreme">
      Furthest from zero in this range: {e.axis} {e.value} mm, in the bucket from {when(e.start)} (the shaded band around each line spans its buckets&apos;
      lowest to highest reading).
    </p>
  );
}
