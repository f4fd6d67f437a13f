import { useState } from 'preact/hooks';
import { sensorTypeSpec } from '@mp/contracts/vocabulary';
import { api, type Json, type Page } from '../api';
import { fromWallTime, inZone, nowInZone } from '../time';
import { ErrorNotice, FieldError, FormError, useAction, useLoad } from '../ui';

/** The coefficients each method takes, in the order the manuals give them (ADR 0116). */
const METHODS: Record<string, { name: string; label: string; optional?: boolean }[]> = {
  vibrating_wire: [
    { name: 'gauge_factor', label: 'Gauge factor G (per digit)' },
    { name: 'zero_reading', label: 'Zero reading R₀ (digits)' },
    { name: 'temperature_factor', label: 'Temperature factor K (per °C)', optional: true },
    { name: 'zero_temperature', label: 'Zero temperature T₀ (°C)', optional: true },
  ],
  linear: [
    { name: 'factor', label: 'Factor' },
    { name: 'offset', label: 'Offset' },
  ],
  polynomial: [
    { name: 'a', label: 'a (raw²)' },
    { name: 'b', label: 'b (raw)' },
    { name: 'c', label: 'c' },
  ],
};

const coefficientsText = (c: Json) =>
  (METHODS[c.method] ?? [])
    .filter((f) => c[f.name] !== null && c[f.name] !== undefined)
    .map((f) => `${f.name} ${c[f.name]}`)
    .join(' · ');

/**
 * A point's dated calibrations (GET/POST /points/{id}/calibrations): shown only for a type with a
 * raw channel its calibrations convert (a vibrating-wire frequency, a rain gauge's tips). A new one
 * is valid from a time on the project's clock; the readings from then on are recomputed in the
 * background, and each calibration shows how far that has come.
 */
export function PointCalibrations({ point, zone, onChanged }: { point: Json; zone: string; onChanged: () => void }) {
  const converted = sensorTypeSpec(point.sensor_type)?.channels.find((c) => c.from !== undefined);
  const list = useLoad(() => (converted ? api.listCalibrations(point.id) : Promise.resolve(null as Page<Json> | null)), [point.id]);
  const [method, setMethod] = useState('vibrating_wire');
  const [values, setValues] = useState<Record<string, string>>({});
  const [from, setFrom] = useState(() => nowInZone(zone));
  const add = useAction();
  if (!converted) return null;
  const fields = METHODS[method]!;
  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      const coefficients = Object.fromEntries(fields.flatMap((f) => ((values[f.name] ?? '').trim() === '' ? [] : [[f.name, Number(values[f.name])]])));
      await api.addCalibration(point.id, { method, ...coefficients, valid_from: fromWallTime(from, zone) });
      setValues({});
      list.reload();
      onChanged();
    });
  };
  const pending = list.data?.items.some((c) => c.recompute?.status !== 'done');
  return (
    <div class="card">
      <h2 id="calibrations">Calibrations</h2>
      <p class="muted small">
        {converted.from} is converted into {converted.name} ({converted.unit}) with the calibration valid at each reading's time.
        {pending && (
          <>
            {' '}
            <button type="button" onClick={list.reload}>
              Refresh progress
            </button>
          </>
        )}
      </p>
      <ErrorNotice error={list.error} />
      <table>
        <caption>Calibrations of this point, newest first, times in {zone}</caption>
        <thead>
          <tr>
            <th scope="col">Valid from</th>
            <th scope="col">Method</th>
            <th scope="col">Coefficients</th>
            <th scope="col">Readings recomputed</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.items.map((c) => (
            <tr key={c.id}>
              <th scope="row">{inZone(c.valid_from, zone)}</th>
              <td>{c.method.replace('_', ' ')}</td>
              <td class="small">{coefficientsText(c)}</td>
              <td>
                {c.recompute.status === 'done'
                  ? `${c.recompute.records} (${c.recompute.changed} changed)`
                  : `${c.recompute.status}: ${c.recompute.records} so far`}
              </td>
              <td class="small">{c.created_by}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.items.length === 0 && <p class="muted">No calibration yet: readings carrying only {converted.from} are stored as sent.</p>}
      <form aria-labelledby="calibration-add" onSubmit={submit}>
        <h3 id="calibration-add">Add a calibration</h3>
        <FormError error={add.error} fields={['method', 'valid_from', ...fields.map((f) => f.name)]} />
        <div class="controls">
          <div class="field">
            <label for="cal-method">Method</label>
            <select id="cal-method" value={method} onChange={(e) => (setMethod((e.target as HTMLSelectElement).value), setValues({}))}>
              {Object.keys(METHODS).map((m) => (
                <option key={m} value={m}>
                  {m.replace('_', ' ')}
                </option>
              ))}
            </select>
          </div>
          {fields.map((f) => (
            <div class="field" key={f.name}>
              <label for={`cal-${f.name}`}>
                {f.label}
                {f.optional ? ' (optional)' : ''}
              </label>
              <input
                id={`cal-${f.name}`}
                inputMode="decimal"
                required={!f.optional}
                value={values[f.name] ?? ''}
                onInput={(e) => setValues((v) => ({ ...v, [f.name]: (e.target as HTMLInputElement).value }))}
              />
              <FieldError error={add.error} field={f.name} />
            </div>
          ))}
          <div class="field">
            <label for="cal-from">Valid from ({zone})</label>
            <input id="cal-from" type="datetime-local" step="1" required value={from} onInput={(e) => setFrom((e.target as HTMLInputElement).value)} />
            <FieldError error={add.error} field="valid_from" />
          </div>
          <button type="submit" disabled={add.busy}>
            Add calibration
          </button>
        </div>
      </form>
    </div>
  );
}
