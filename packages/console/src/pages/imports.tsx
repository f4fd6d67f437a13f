import { IMPORT_TIMESTAMP_FORMATS } from '@mp/contracts/vocabulary';
import { useEffect, useState } from 'preact/hooks';
import { api, type Json, type Page } from '../api';
import { Badge, ErrorNotice, Field, useAction, useLoad, when } from '../ui';

const value = (e: Event) => (e.target as HTMLInputElement).value;
const STATUS_TONE: Record<string, string> = { processing: 'info', completed: 'good', failed: 'bad' };

/**
 * Logger file imports of a project (docs/imports.md): its import profiles, a simple profile made
 * from the project's points (one file column per point and channel), a file sent through a
 * profile, and the import's progress and errors, read again every second while it runs.
 */
export function Imports({ projectId, points }: { projectId: string; points: { data: Page<Json> | undefined } }) {
  const profiles = useLoad(() => api.listImportProfiles(projectId), [projectId]);
  const empty = {
    name: '',
    format: 'csv',
    timestamp_column: 'TIMESTAMP',
    timestamp_format: 'iso',
    time_zone: 'UTC',
    delimiter: '',
    decimal: '.',
    column: '',
    point_id: '',
    channel: '',
  };
  const [f, setF] = useState(empty);
  const [columns, setColumns] = useState<{ column: string; point_id: string; channel: string }[]>([]);
  const [profileId, setProfileId] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [importId, setImportId] = useState<string | null>(null);
  const [imp, setImp] = useState<Json | null>(null);
  const create = useAction();
  const upload = useAction();
  const set = (k: keyof typeof empty) => (e: Event) => setF({ ...f, [k]: value(e) });
  const pointList = points.data?.items ?? [];

  useEffect(() => {
    if (!importId) return;
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await api.getImport(importId);
        if (stop) return;
        setImp(next);
        if (next.status === 'processing') timer = setTimeout(poll, 1000);
      } catch {
        if (!stop) timer = setTimeout(poll, 3000);
      }
    };
    void poll();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [importId]);

  return (
    <div class="card">
      <h2 id="imports">Logger file imports</h2>
      <form
        aria-labelledby="imports-profile"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(async () => {
            await api.createImportProfile(projectId, {
              name: f.name,
              format: f.format,
              timestamp_column: f.timestamp_column,
              timestamp_format: f.timestamp_format,
              time_zone: f.time_zone,
              // an empty delimiter leaves the API's default (`,`, or `;` with decimal commas)
              ...(f.delimiter ? { delimiter: f.delimiter } : {}),
              decimal: f.decimal,
              columns,
            });
            setF(empty);
            setColumns([]);
            profiles.reload();
          });
        }}
      >
        <h3 id="imports-profile">New import profile</h3>
        <ErrorNotice error={create.error ?? profiles.error} />
        <div class="row">
          <Field label="Profile name" id="imp-name">
            <input id="imp-name" required maxLength={100} value={f.name} onInput={set('name')} />
          </Field>
          <Field label="Format" id="imp-format">
            <select id="imp-format" value={f.format} onChange={set('format')}>
              <option value="csv">CSV</option>
              <option value="toa5">Campbell TOA5</option>
            </select>
          </Field>
          <Field label="Time column" id="imp-ts">
            <input id="imp-ts" required maxLength={200} value={f.timestamp_column} onInput={set('timestamp_column')} />
          </Field>
          <Field label="Time zone" id="imp-tz" hint="IANA, e.g. Europe/Zurich; Etc/GMT-1 for UTC+1 all year">
            <input id="imp-tz" required maxLength={64} value={f.time_zone} onInput={set('time_zone')} />
          </Field>
        </div>
        <div class="row">
          <Field label="Time format" id="imp-tsf" hint="How the file writes times; iso: 2026-03-10T09:00:00 or 2026-03-10 09:00:00, an offset optional">
            <select id="imp-tsf" value={f.timestamp_format} onChange={set('timestamp_format')}>
              {IMPORT_TIMESTAMP_FORMATS.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Delimiter" id="imp-delim" hint="One character; empty: , (or ; with decimal commas)">
            <input id="imp-delim" maxLength={1} size={2} value={f.delimiter} onInput={set('delimiter')} />
          </Field>
          <Field label="Decimal mark" id="imp-decimal">
            <select id="imp-decimal" value={f.decimal} onChange={set('decimal')}>
              <option value=".">. (12.75)</option>
              <option value=",">, (12,75)</option>
            </select>
          </Field>
        </div>
        <div class="row">
          <Field label="File column" id="imp-col">
            <input id="imp-col" maxLength={200} value={f.column} onInput={set('column')} />
          </Field>
          <Field label="Point" id="imp-point">
            <select id="imp-point" value={f.point_id} onChange={set('point_id')}>
              <option value="">—</option>
              {pointList.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.number} {p.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Channel" id="imp-channel" hint="e.g. pore_pressure, temperature, dz">
            <input id="imp-channel" maxLength={64} value={f.channel} onInput={set('channel')} />
          </Field>
          <button
            type="button"
            disabled={!f.column || !f.point_id || !f.channel}
            onClick={() => {
              setColumns([...columns, { column: f.column, point_id: f.point_id, channel: f.channel }]);
              setF({ ...f, column: '', channel: '' });
            }}
          >
            Add column
          </button>
        </div>
        {columns.length > 0 && (
          <ul id="imp-columns">
            {columns.map((c, i) => (
              <li key={i}>
                {c.column} → {pointList.find((p) => p.id === c.point_id)?.number ?? c.point_id} · {c.channel}
              </li>
            ))}
          </ul>
        )}
        <button type="submit" disabled={create.busy || columns.length === 0}>
          Create profile
        </button>
      </form>

      <table>
        <caption>Import profiles</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Format</th>
            <th scope="col">Time</th>
            <th scope="col">Columns</th>
          </tr>
        </thead>
        <tbody>
          {profiles.data?.items.map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.name}</th>
              <td>
                {p.format}
                {p.delimiter ? ` · delimiter ${p.delimiter}` : ''}
                {p.decimal === ',' ? ' · decimal comma' : ''}
              </td>
              <td>
                {p.timestamp_column} ({p.timestamp_format ?? 'iso'}, {p.time_zone})
              </td>
              <td>{(p.columns as Json[]).map((c) => `${c.column} → ${c.channel}`).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <form
        aria-labelledby="imports-upload"
        onSubmit={(e) => {
          e.preventDefault();
          if (!file || !profileId) return;
          upload.run(async () => {
            setImp(null);
            const started = await api.uploadImport(projectId, profileId, file);
            setImp(started);
            setImportId(started.import_id);
          });
        }}
      >
        <h3 id="imports-upload">Upload a file</h3>
        <ErrorNotice error={upload.error} />
        <div class="row">
          <Field label="Profile" id="imp-profile">
            <select id="imp-profile" required value={profileId} onChange={(e) => setProfileId(value(e))}>
              <option value="">—</option>
              {profiles.data?.items.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Logger file" id="imp-file" hint="CSV or TOA5 (.dat), up to 200 MB">
            <input
              id="imp-file"
              type="file"
              accept=".csv,.dat,.txt,text/csv"
              required
              onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
            />
          </Field>
        </div>
        <button type="submit" disabled={upload.busy || !file || !profileId}>
          {upload.busy ? 'Uploading…' : 'Import'}
        </button>
      </form>

      {imp && (
        <div id="import-progress" role="status">
          <p>
            Import {imp.import_id}: <Badge tone={STATUS_TONE[imp.status] ?? 'idle'}>{imp.status}</Badge> · {imp.rows} rows read · {imp.stored} readings stored ·{' '}
            {imp.duplicates} duplicates · {imp.rejected} refused
            {imp.completed_at && <span class="muted"> · finished {when(imp.completed_at)}</span>}
          </p>
          {imp.failure && (
            <p class="muted">
              Stopped: {imp.failure.detail} ({imp.failure.code})
            </p>
          )}
          {imp.error_count > 0 && (
            <table>
              <caption>
                Errors ({imp.error_count}
                {imp.error_count > imp.errors.length ? `, the first ${imp.errors.length} shown` : ''})
              </caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Column</th>
                  <th scope="col">Code</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {(imp.errors as Json[]).slice(0, 200).map((e, i) => (
                  <tr key={i}>
                    <td>{e.row}</td>
                    <td>{e.column ?? '—'}</td>
                    <td>{e.code}</td>
                    <td>{e.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </div>
  );
}
