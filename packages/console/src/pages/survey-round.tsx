import { useState } from 'preact/hooks';
import { api, type Json, type Page } from '../api';
import { label } from '../transitions';
import { fromWallTime, nowInZone } from '../time';
import { ErrorNotice, refusedField, useAction } from '../ui';
import { manualChannels } from './point-readings';

/** A refusal's field as `records[i].values.<channel>` or `records[i].…`: the row and the input it names. */
function refusedCell(error: unknown): { record: number; channel: string | null } | null {
  const field = refusedField(error);
  if (field === null) return null;
  const m = /^records\[(\d+)\](?:\.values\.([A-Za-z0-9_]+))?/.exec(field);
  return m ? { record: Number(m[1]), channel: m[2] ?? null } : null;
}

/**
 * A survey round entered by hand: one time (the project's clock) and a row per active point of one
 * sensor type (a levelling round, a prism round, a dip round of the piezometers), sent as ONE write
 * of POST /projects/{id}/data, so it passes the same validation and raises the same alarms as a
 * logger's. The write is all or nothing: a refused value is shown in its row and nothing is stored.
 */
export function SurveyRound({
  projectId,
  points,
  zone,
  onWritten,
}: {
  projectId: string;
  points: { data: Page<Json> | undefined };
  zone: string;
  onWritten: () => void;
}) {
  const active = (points.data?.items ?? []).filter((p) => p.active !== false);
  const types = [...new Set(active.map((p) => p.sensor_type as string))];
  const [chosenType, setType] = useState('');
  const type = types.includes(chosenType) ? chosenType : (types[0] ?? '');
  const rows = active.filter((p) => p.sensor_type === type);
  const channels = manualChannels(type);
  const [at, setAt] = useState(() => nowInZone(zone));
  // point id → channel → the text typed in
  const [typed, setTyped] = useState<Record<string, Record<string, string>>>({});
  const [sent, setSent] = useState<string[]>([]);
  const [stored, setStored] = useState<number | null>(null);
  const write = useAction();
  if (!types.length) return null;

  const submit = (e: Event) => {
    e.preventDefault();
    setStored(null);
    const filled = rows.flatMap((p) => {
      const values = Object.fromEntries(Object.entries(typed[p.id] ?? {}).flatMap(([c, v]) => (v.trim() === '' ? [] : [[c, Number(v)]])));
      return Object.keys(values).length ? [{ point: p, values }] : [];
    });
    // Row i of the write is the i-th filled row: a refusal's records[i] is mapped back to it.
    setSent(filled.map((f) => f.point.id));
    void write.run(async () => {
      if (!filled.length) throw new Error('Type in the values of at least one point of this round.');
      const measuredAt = fromWallTime(at, zone);
      await api.writeData(
        projectId,
        filled.map((f) => ({ point_id: f.point.id, measured_at: measuredAt, values: f.values })),
      );
      setTyped({});
      setStored(filled.length);
      onWritten();
    });
  };
  const cell = refusedCell(write.error);
  const refusedPoint = cell ? sent[cell.record] : undefined;
  const inputError = (pointId: string, channel: string) => refusedPoint === pointId && (cell!.channel === channel || cell!.channel === null);

  return (
    <div class="card">
      <h2 id="survey-round">Survey round</h2>
      <p class="muted small">Readings taken by hand at one time, a row per point. Empty rows are skipped; one write, all or nothing.</p>
      <form aria-labelledby="survey-round" onSubmit={submit}>
        <ErrorNotice error={write.error} />
        {stored !== null && (
          <p role="status">
            Stored {stored} reading{stored === 1 ? '' : 's'}.
          </p>
        )}
        <div class="controls">
          <div class="field">
            <label for="round-type">Points of type</label>
            <select id="round-type" value={type} onChange={(e) => (setType((e.target as HTMLSelectElement).value), setTyped({}))}>
              {types.map((t) => (
                <option key={t} value={t}>
                  {label(t)}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="round-at">Round measured at ({zone})</label>
            <input id="round-at" type="datetime-local" step="1" required value={at} onInput={(e) => setAt((e.target as HTMLInputElement).value)} />
          </div>
        </div>
        <table>
          <caption>Values of this round, one row per point</caption>
          <thead>
            <tr>
              <th scope="col">Point</th>
              {channels.map((c) => (
                <th scope="col" key={c.name}>
                  {c.name} ({c.unit})
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id}>
                <th scope="row">
                  {p.number} {p.name}
                </th>
                {channels.map((c) => (
                  <td key={c.name}>
                    <input
                      aria-label={`${c.name} of ${p.number} (${c.unit})`}
                      inputMode="decimal"
                      aria-invalid={inputError(p.id, c.name) ? 'true' : undefined}
                      value={typed[p.id]?.[c.name] ?? ''}
                      onInput={(e) => {
                        const v = (e.target as HTMLInputElement).value;
                        setTyped((all) => ({ ...all, [p.id]: { ...all[p.id], [c.name]: v } }));
                      }}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        <button type="submit" class="primary" disabled={write.busy}>
          Store the round
        </button>
      </form>
    </div>
  );
}
