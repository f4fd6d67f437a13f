import { useEffect, useState } from 'preact/hooks';
import { api, type Json } from '../api';
import { label } from '../transitions';
import { Badge, ErrorNotice, Field, PageTitle, useAction, useLoad, when } from '../ui';

const TONE: Record<string, string> = { generating: 'info', generated: 'info', failed: 'bad', approved: 'good', rejected: 'warn' };
const dayStart = (d: string) => new Date(`${d}T00:00:00Z`).toISOString();
const today = () => new Date().toISOString().slice(0, 10);
const monthAgo = () => new Date(Date.now() - 30 * 86400_000).toISOString().slice(0, 10);
/** How often the list is read again while a report is still generating (the API has no push). */
const GENERATING_REFRESH_MS = 2000;
const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KB` : `${(bytes / 1048576).toFixed(1)} MB`);

/** Saves downloaded bytes under their name: the anchor must be in the document for the click to count everywhere. */
function save(blob: Blob, fileName: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has taken the bytes once the click is handled; the URL is released afterwards.
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/**
 * Reports (docs/rules.md#report-generation): generate from a template for a project and a period, follow the
 * status, download the files, approve or reject with a comment. Templates can be made here too.
 */
export function Reports() {
  const projects = useLoad(() => api.listProjects(), []);
  const templates = useLoad(() => api.listTemplates(), []);
  const [filter, setFilter] = useState('');
  const reports = useLoad(() => api.listReports({ status: filter }), [filter]);
  const [f, setF] = useState({ project_id: '', template_id: '', from: monthAgo(), to: today(), title: '' });
  const [tplName, setTplName] = useState('');
  const [comment, setComment] = useState('');
  const gen = useAction();
  const tpl = useAction();
  const act = useAction();
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });

  // Follow reports that are still being made until the reports service has finished them.
  const generating = reports.data?.items.some((r) => r.status === 'generating') ?? false;
  useEffect(() => {
    if (!generating) return;
    const t = setInterval(reports.reload, GENERATING_REFRESH_MS);
    return () => clearInterval(t);
  }, [generating]);

  const download = (r: Json, format: string) =>
    act.run(async () => {
      const { blob, fileName } = await api.downloadReport(r.id, format);
      save(blob, fileName);
    });
  // A review refused because someone else reviewed first (409011) shows the error and the
  // report's real status, so the list never keeps offering a decision that is no longer open.
  const review = (decide: () => Promise<unknown>) =>
    act.run(async () => {
      try {
        await decide();
        setComment('');
      } finally {
        reports.reload();
      }
    });

  return (
    <section>
      <PageTitle>Reports</PageTitle>
      <div class="two">
        <form
          class="card"
          aria-labelledby="new-report"
          onSubmit={(e) => {
            e.preventDefault();
            gen.run(async () => {
              await api.generateReport(f.project_id, {
                template_id: f.template_id,
                from: dayStart(f.from),
                to: dayStart(f.to),
                ...(f.title ? { title: f.title } : {}),
              });
              reports.reload();
            });
          }}
        >
          <h2 id="new-report">Generate a report</h2>
          <ErrorNotice error={gen.error ?? templates.error} />
          <Field label="Project" id="rpt-project">
            <select id="rpt-project" required value={f.project_id} onChange={set('project_id')}>
              <option value="">choose…</option>
              {projects.data?.items.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.number} · {p.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Template" id="rpt-template">
            <select id="rpt-template" required value={f.template_id} onChange={set('template_id')}>
              <option value="">choose…</option>
              {templates.data?.items.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </Field>
          <div class="row">
            <Field label="From (UTC day)" id="rpt-from">
              <input id="rpt-from" type="date" required value={f.from} onInput={set('from')} />
            </Field>
            <Field label="To (UTC day, exclusive)" id="rpt-to">
              <input id="rpt-to" type="date" required value={f.to} onInput={set('to')} />
            </Field>
          </div>
          <Field label="Title (optional)" id="rpt-title">
            <input id="rpt-title" value={f.title} onInput={set('title')} />
          </Field>
          <button type="submit" class="primary" disabled={gen.busy}>
            Generate report
          </button>
        </form>
        <form
          class="card"
          aria-labelledby="new-template"
          onSubmit={(e) => {
            e.preventDefault();
            tpl.run(async () => {
              await api.createTemplate({ name: tplName, sections: ['summary', 'alarms', 'latest', 'points'], formats: ['pdf', 'csv', 'xlsx'] });
              setTplName('');
              templates.reload();
            });
          }}
        >
          <h2 id="new-template">New template</h2>
          <ErrorNotice error={tpl.error} />
          <p class="muted small">All sections (summary, alarms, latest values, per-point charts) and all formats (PDF, CSV, XLSX).</p>
          <Field label="Template name" id="tpl-name">
            <input id="tpl-name" required value={tplName} onInput={(e) => setTplName((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" disabled={tpl.busy}>
            Create template
          </button>
        </form>
      </div>

      <div class="row controls">
        <Field label="Show status" id="rpt-filter">
          <select id="rpt-filter" value={filter} onChange={(e) => setFilter((e.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            {Object.keys(TONE).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Comment or reason for approve / reject" id="rpt-comment">
          <input id="rpt-comment" value={comment} onInput={(e) => setComment((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="button" onClick={reports.reload}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={act.error ?? reports.error} />
      <table>
        <caption>Reports</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Project</th>
            <th scope="col">Period</th>
            <th scope="col">Status</th>
            <th scope="col">Records</th>
            <th scope="col">Files</th>
            <th scope="col">Decision</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {reports.data?.items.map((r) => (
            <tr key={r.id}>
              <th scope="row">{r.title}</th>
              <td>{r.project_name}</td>
              <td class="small">
                {when(r.from).slice(0, 10)} – {when(r.to).slice(0, 10)}
              </td>
              <td>
                <Badge tone={TONE[r.status] ?? 'idle'}>{label(r.status)}</Badge>
                {r.status === 'failed' && r.failure && (
                  <div class="small">
                    {r.failure.detail} ({r.failure.code})
                  </div>
                )}
              </td>
              <td class="small">
                {r.status === 'generating' ? '—' : r.record_count}
                {r.data_as_of && <div class="muted">data as of {when(r.data_as_of)}</div>}
              </td>
              {/* the cell stays a table cell; its buttons flow in a flex box inside it */}
              <td>
                <div class="actions one-line">
                  {r.files.map((file: Json) => (
                    <button
                      key={file.format}
                      type="button"
                      disabled={act.busy}
                      aria-label={`Download ${file.format} of ${r.title}`}
                      title={`sha256 ${file.sha256}`}
                      onClick={() => download(r, file.format)}
                    >
                      {file.format.toUpperCase()} <span class="muted small">{size(file.size_bytes)}</span>
                    </button>
                  ))}
                </div>
              </td>
              <td class="small">
                {r.approved_at && `approved ${when(r.approved_at)}${r.comment ? `: ${r.comment}` : ''}`}
                {r.rejected_at && `rejected ${when(r.rejected_at)}: ${r.reason}`}
                {!r.approved_at && !r.rejected_at && r.generated_at && `generated ${when(r.generated_at)}`}
              </td>
              <td>
                {r.status === 'generated' && (
                  <div class="actions">
                    <button
                      type="button"
                      disabled={act.busy}
                      aria-label={`Approve ${r.title}`}
                      onClick={() => review(() => api.approveReport(r.id, comment || undefined))}
                    >
                      Approve
                    </button>
                    <button
                      type="button"
                      class="danger"
                      disabled={act.busy || !comment}
                      aria-label={`Reject ${r.title}`}
                      title={comment ? undefined : 'Write the reason first'}
                      onClick={() => review(() => api.rejectReport(r.id, comment))}
                    >
                      Reject
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {reports.data && reports.data.items.length === 0 && <p class="muted">No reports yet.</p>}
    </section>
  );
}
