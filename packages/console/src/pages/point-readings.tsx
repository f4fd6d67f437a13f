import { useState } from 'preact/hooks';
import { sensorTypeSpec } from '@mp/contracts/vocabulary';
import { api, type Json } from '../api';
import { fromWallTime, inZone, nowInZone } from '../time';
import { ErrorNotice, FieldError, FormError, useAction, useLoad } from '../ui';

const QUALITY_FLAGS = ['valid', 'suspect', 'invalid'] as const;

/** The channels a person types in for a manual reading: displacements of the geodetic types, the measured channels of an instrument. */
export function manualChannels(sensorType: string): { name: string; unit: string }[] {
  const spec = sensorTypeSpec(sensorType);
  if (!spec) return [];
  if (spec.geodetic) return ['dx', 'dy', 'dz'].map((name) => ({ name, unit: 'mm' }));
  return spec.channels.filter((c) => c.kind === 'measured').map((c) => ({ name: c.name, unit: c.unit }));
}

/** One reading: its quality flag and remark, saved with the version it was read at (PATCH /data/{id}). */
function ReadingRow({ r, zone, channels, onSaved }: { r: Json; zone: string; channels: string[]; onSaved: () => void }) {
  const [flag, setFlag] = useState<string>(r.quality_flag);
  const [remark, setRemark] = useState<string>(r.remark ?? '');
  const save = useAction();
  const at = inZone(r.measured_at, zone);
  const changed = flag !== r.quality_flag || remark !== (r.remark ?? '');
  const submit = () =>
    save.run(async () => {
      await api.correctData(r.data_id, {
        version: r.version,
        ...(flag !== r.quality_flag ? { quality_flag: flag } : {}),
        ...(remark !== (r.remark ?? '') ? { remark: remark.trim() === '' ? null : remark } : {}),
      });
      onSaved();
    });
  return (
    <tr>
      <th scope="row">{at}</th>
      <td>{channels.map((c) => `${c} ${r.values[c] ?? '—'}`).join(' · ')}</td>
      <td>
        <select aria-label={`Quality flag of the reading at ${at}`} value={flag} onChange={(e) => setFlag((e.target as HTMLSelectElement).value)}>
          {QUALITY_FLAGS.map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
        <FieldError error={save.error} field="quality_flag" />
      </td>
      <td>
        <input aria-label={`Remark on the reading at ${at}`} value={remark} onInput={(e) => setRemark((e.target as HTMLInputElement).value)} />
        <FieldError error={save.error} field="remark" />
      </td>
      <td>
        <button type="button" disabled={save.busy || !changed} aria-label={`Save the reading at ${at}`} onClick={submit}>
          Save
        </button>
        <FormError error={save.error} fields={['quality_flag', 'remark']} />
      </td>
    </tr>
  );
}

/**
 * The point's recent readings to check (quality flag, remark) and a reading entered by hand
 * (time in the project's zone, a value per channel), written through POST /projects/{id}/data
 * like any other reading, so it passes the same validation and raises the same alarms.
 */
export function PointReadings({ point, zone, tick, onChanged }: { point: Json; zone: string; tick: number; onChanged: () => void }) {
  const readings = useLoad(() => api.listPointData(point.id, { limit: 20, order: 'desc' }), [point.id, tick]);
  const channels = manualChannels(point.sensor_type);
  const [at, setAt] = useState(() => nowInZone(zone));
  const [values, setValues] = useState<Record<string, string>>({});
  const add = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      const entered = Object.fromEntries(Object.entries(values).flatMap(([k, v]) => (v.trim() === '' ? [] : [[k, Number(v)]])));
      await api.writeData(point.project_id, [{ point_id: point.id, measured_at: fromWallTime(at, zone), values: entered }]);
      setValues({});
      onChanged();
    });
  };
  const names = channels.map((c) => c.name);
  const valueFields = names.map((n) => `records[0].values.${n}`);
  return (
    <div class="card">
      <h2 id="readings">Readings: quality and remarks</h2>
      <ErrorNotice error={readings.error} />
      <table>
        <caption>Recent readings of this point, times in {zone}</caption>
        <thead>
          <tr>
            <th scope="col">Measured at ({zone})</th>
            <th scope="col">Values</th>
            <th scope="col">Quality flag</th>
            <th scope="col">Remark</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {readings.data?.items.map((r) => (
            <ReadingRow key={`${r.data_id}-${r.version}`} r={r} zone={zone} channels={names} onSaved={onChanged} />
          ))}
        </tbody>
      </table>
      <form aria-labelledby="manual-reading-title" onSubmit={submit}>
        <h3 id="manual-reading-title">Manual reading</h3>
        <FormError error={add.error} fields={['records[0].measured_at', ...valueFields]} />
        <div class="controls">
          <div class="field">
            <label for="manual-at">Measured at ({zone})</label>
            <input id="manual-at" type="datetime-local" step="1" required value={at} onInput={(e) => setAt((e.target as HTMLInputElement).value)} />
            <FieldError error={add.error} field="records[0].measured_at" />
          </div>
          {channels.map((c) => (
            <div class="field" key={c.name}>
              <label for={`manual-${c.name}`}>
                {c.name} ({c.unit})
              </label>
              <input
                id={`manual-${c.name}`}
                inputMode="decimal"
                value={values[c.name] ?? ''}
                onInput={(e) => setValues((v) => ({ ...v, [c.name]: (e.target as HTMLInputElement).value }))}
              />
              <FieldError error={add.error} field={`records[0].values.${c.name}`} />
            </div>
          ))}
          <button type="submit" disabled={add.busy}>
            Add reading
          </button>
        </div>
      </form>
    </div>
  );
}
