import { useState } from 'preact/hooks';
import { sensorTypeSpec } from '@mp/contracts/vocabulary';
import { api, type Json, type Page } from '../api';
import { CompareChart, MAX_COMPARED } from '../chart';
import { ErrorNotice, useLoad } from '../ui';

const COMPONENTS = ['dz', 'dx', 'dy'] as const;

/**
 * Several points of the project on one chart, e.g. the settlement (dz) of a section's points over
 * the last 30 days: the engineer ticks the points (up to MAX_COMPARED) and picks the component;
 * each point's series is asked for with the same range and bucket count.
 */
export function ComparePoints({ points }: { points: { data: Page<Json> | undefined } }) {
  const [chosen, setChosen] = useState<string[]>([]);
  const [component, setComponent] = useState<(typeof COMPONENTS)[number]>('dz');
  // displacements compare: the geodetic points (an instrument's channels have units of their own; its page charts them)
  const all = (points.data?.items ?? []).filter((p) => sensorTypeSpec(p.sensor_type)?.geodetic ?? true);
  const lines = useLoad(async () => {
    if (!chosen.length) return [];
    const to = new Date();
    const from = new Date(to.getTime() - 30 * 86_400_000);
    const range = { from: from.toISOString(), to: to.toISOString(), buckets: 300 };
    return Promise.all(
      chosen.map(async (id) => {
        const pt = all.find((p) => p.id === id);
        return { label: pt ? `${pt.number} ${pt.name}` : id, series: await api.getSeries(id, range) };
      }),
    );
  }, [chosen.join(',')]);
  if (all.length < 2) return null;
  const toggle = (id: string) => setChosen(chosen.includes(id) ? chosen.filter((c) => c !== id) : [...chosen, id]);
  return (
    <div class="card">
      <h2 id="compare">Compare points</h2>
      <p class="muted small">Several points on one chart, e.g. a section's settlement over the last 30 days. Up to {MAX_COMPARED} points.</p>
      <fieldset>
        <legend>Points to compare</legend>
        {all.map((p) => (
          <label key={p.id} class="check">
            <input
              type="checkbox"
              checked={chosen.includes(p.id)}
              disabled={!chosen.includes(p.id) && chosen.length >= MAX_COMPARED}
              onChange={() => toggle(p.id)}
            />{' '}
            {p.number} {p.name}
          </label>
        ))}
      </fieldset>
      <label>
        Component{' '}
        <select value={component} onChange={(e) => setComponent((e.target as HTMLSelectElement).value as (typeof COMPONENTS)[number])}>
          {COMPONENTS.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <ErrorNotice error={lines.error} />
      {lines.data && lines.data.length > 0 && <CompareChart component={component} lines={lines.data} />}
      {chosen.length === 0 && <p class="muted">Tick two or more points to see them together.</p>}
    </div>
  );
}
