import { useState } from 'preact/hooks';
import { sensorTypeSpec, TRIGGER_LEVELS } from '@mp/contracts/vocabulary';
import { api, type Json } from '../api';
import { FieldError, FormError, refusedField, useAction } from '../ui';

/** The alarm rules a point may set (docs/adr/0024-alarms.md); a blank field means the platform default. */
const RULES: [key: string, label: string][] = [
  ['clear_after_readings', 'Clear after readings back in range'],
  ['rate_warning_mm_per_day', 'Rate warning (mm/day)'],
  ['rate_alarm_mm_per_day', 'Rate alarm (mm/day)'],
  ['rate_window_hours', 'Rate window (hours)'],
  ['expected_interval_seconds', 'Expected interval (s)'],
  ['stale_factor', 'Stale factor'],
];

type Level = { level: string; channel: string; above: string; below: string };

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
/** A number field as the API takes it: blank is "not given"; anything else is sent as typed so the API judges it. */
const num = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s));
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What changes about a point day to day: its displacement thresholds and reference coordinates
 * (geodetic types) or its trigger levels (instrument types, on the channels of its type), and its
 * alarm rules. Only the changed fields are sent, with the version the form was filled from, so a
 * save after someone else's is refused (409004) instead of overwriting it. A refusal naming a
 * field is shown next to that field and nothing is stored.
 */
export function PointEditForm({ point, onSaved, onCancel }: { point: Json; onSaved: (p: Json) => void; onCancel: () => void }) {
  const spec = sensorTypeSpec(point.sensor_type);
  const geodetic = spec?.geodetic ?? false;
  const [warning, setWarning] = useState(text(point.thresholds?.warning));
  const [alarm, setAlarm] = useState(text(point.thresholds?.alarm));
  const [ref, setRef] = useState({ x: text(point.reference?.x), y: text(point.reference?.y), z: text(point.reference?.z) });
  const [levels, setLevels] = useState<Level[]>(
    (point.trigger_levels ?? []).map((t: Json) => ({ level: t.level, channel: t.channel, above: text(t.above), below: text(t.below) })),
  );
  const [rules, setRules] = useState<Record<string, string>>(Object.fromEntries(RULES.map(([k]) => [k, text(point.alarm_rules?.[k])])));
  const save = useAction();

  const body = (): Json => {
    const b: Json = { version: point.version };
    if (geodetic) {
      const thresholds = { warning: num(warning), alarm: num(alarm) };
      if (!same(thresholds, point.thresholds)) b.thresholds = thresholds;
      const reference = { x: num(ref.x), y: num(ref.y), z: num(ref.z) };
      if (!same(reference, point.reference)) b.reference = reference;
    } else {
      const next = levels.map((l) => ({
        level: l.level,
        channel: l.channel,
        ...(num(l.above) !== undefined ? { above: num(l.above) } : {}),
        ...(num(l.below) !== undefined ? { below: num(l.below) } : {}),
      }));
      const before = (point.trigger_levels ?? []).map((t: Json) => ({
        level: t.level,
        channel: t.channel,
        ...(t.above !== null && t.above !== undefined ? { above: t.above } : {}),
        ...(t.below !== null && t.below !== undefined ? { below: t.below } : {}),
      }));
      if (!same(next, before)) b.trigger_levels = next;
    }
    const set = Object.fromEntries(RULES.flatMap(([k]) => (num(rules[k]!) === undefined ? [] : [[k, num(rules[k]!)]])));
    const had = Object.fromEntries(RULES.flatMap(([k]) => (point.alarm_rules?.[k] == null ? [] : [[k, point.alarm_rules[k]]])));
    // No rule left means the platform defaults: null clears them.
    if (!same(set, had)) b.alarm_rules = Object.keys(set).length ? set : null;
    return b;
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void save.run(async () => onSaved(await api.updatePoint(point.id, body())));
  };

  const fields = [
    'thresholds',
    'thresholds.warning',
    'thresholds.alarm',
    'reference',
    'reference.x',
    'reference.y',
    'reference.z',
    ...RULES.map(([k]) => `alarm_rules.${k}`),
    ...levels.flatMap((_, i) => ['level', 'channel', 'above', 'below'].map((k) => `trigger_levels[${i}].${k}`)),
  ];
  const input = (id: string, field: string, label: string, value: string, set: (v: string) => void) => (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        inputMode="decimal"
        value={value}
        aria-invalid={refusedField(save.error) === field ? true : undefined}
        onInput={(e) => set((e.target as HTMLInputElement).value)}
      />
      <FieldError error={save.error} field={field} />
    </div>
  );

  return (
    <form class="card" aria-labelledby="edit-point-title" onSubmit={submit}>
      <h2 id="edit-point-title">Edit point</h2>
      <FormError error={save.error} fields={fields} />
      {geodetic ? (
        <>
          <fieldset>
            <legend>Thresholds (mm of displacement)</legend>
            <div class="controls">
              {input('edit-warning', 'thresholds.warning', 'Warning (mm)', warning, setWarning)}
              {input('edit-alarm', 'thresholds.alarm', 'Alarm (mm)', alarm, setAlarm)}
            </div>
          </fieldset>
          <fieldset>
            <legend>Reference coordinates (m)</legend>
            <div class="controls">
              {(['x', 'y', 'z'] as const).map((a) =>
                input(`edit-reference-${a}`, `reference.${a}`, `Reference ${a} (m)`, ref[a], (v) => setRef((r) => ({ ...r, [a]: v }))),
              )}
            </div>
          </fieldset>
        </>
      ) : (
        <fieldset>
          <legend>Trigger levels (units of the channel)</legend>
          {levels.map((l, i) => {
            const setL = (k: keyof Level) => (v: string) => setLevels((ls) => ls.map((x, j) => (j === i ? { ...x, [k]: v } : x)));
            return (
              <div class="controls" key={i} role="group" aria-label={`Trigger level ${i + 1}`}>
                <div class="field">
                  <label for={`edit-level-${i}`}>Level</label>
                  <select id={`edit-level-${i}`} value={l.level} onChange={(e) => setL('level')((e.target as HTMLSelectElement).value)}>
                    {TRIGGER_LEVELS.map((v) => (
                      <option key={v}>{v}</option>
                    ))}
                  </select>
                  <FieldError error={save.error} field={`trigger_levels[${i}].level`} />
                </div>
                <div class="field">
                  <label for={`edit-channel-${i}`}>Channel</label>
                  <select id={`edit-channel-${i}`} value={l.channel} onChange={(e) => setL('channel')((e.target as HTMLSelectElement).value)}>
                    {spec?.channels.map((c) => (
                      <option key={c.name} value={c.name}>
                        {c.name} ({c.unit})
                      </option>
                    ))}
                  </select>
                  <FieldError error={save.error} field={`trigger_levels[${i}].channel`} />
                </div>
                {input(`edit-above-${i}`, `trigger_levels[${i}].above`, 'Above', l.above, setL('above'))}
                {input(`edit-below-${i}`, `trigger_levels[${i}].below`, 'Below', l.below, setL('below'))}
                <button type="button" onClick={() => setLevels((ls) => ls.filter((_, j) => j !== i))}>
                  Remove level {i + 1}
                </button>
              </div>
            );
          })}
          <button type="button" onClick={() => setLevels((ls) => [...ls, { level: 'warning', channel: spec?.primary ?? '', above: '', below: '' }])}>
            Add a trigger level
          </button>
        </fieldset>
      )}
      <fieldset>
        <legend>Alarm rules (blank: the platform default)</legend>
        <div class="controls">
          {RULES.map(([k, label]) => input(`edit-rule-${k}`, `alarm_rules.${k}`, label, rules[k]!, (v) => setRules((r) => ({ ...r, [k]: v }))))}
        </div>
      </fieldset>
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          Save point
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
