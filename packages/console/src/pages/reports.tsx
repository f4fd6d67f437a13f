import { useState } from 'preact/hooks';
import { api, type Json } from '../api';
import { label } from '../transitions';
import { Badge, ErrorNotice, Field, PageTitle, useAction, useLoad, when } from '../ui';

const TONE: Record<string, string> = { generating: 'info', generated: 'info', failed: 'bad', approved: 'good', rejected: 'warn' };
const dayStart = (d: string) => new Date(`${d}T00:00:00Z`).toISOString();
const today = () => new Date().toISOString().slice(0, 10);
const monthAgo = () => new Date(Date.now() - 30 * 86400_000).toISOString().slice(0, 10);

/**
 * Reports (issue 15's API): generate from a template for a project and a period, follow the
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
  const act = useAction();
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });

  const download = (r: Json, format: string) =>
    act.run(async () => {
      const blob = await api.downloadReport(r.id, format);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${r.title ?? r.id}.${format}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
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
            gen.run(async () => {
              await api.createTemplate({ name: tplName, sections: ['summary', 'alarms', 'latest', 'points'], formats: ['pdf', 'csv', 'xlsx'] });
              setTplName('');
              templates.reload();
            });
          }}
        >
          <h2 id="new-template">New template</h2>
          <p class="muted small">All sections (summary, alarms, latest values, per-point charts) and all formats (PDF, CSV, XLSX).</p>
          <Field label="Template name" id="tpl-name">
            <input id="tpl-name" required value={tplName} onInput={(e) => setTplName((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" disabled={gen.busy}>
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
            <th scope="col">Period</th>
            <th scope="col">Status</th>
            <th scope="col">Files</th>
            <th scope="col">Decision</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {reports.data?.items.map((r) => (
            <tr key={r.id}>
              <th scope="row">{r.title ?? r.id}</th>
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
              <td class="actions">
                {(r.files ?? []).map((file: Json) => (
                  <button key={file.format} type="button" aria-label={`Download ${file.format} of ${r.title ?? r.id}`} onClick={() => download(r, file.format)}>
                    {file.format.toUpperCase()}
                  </button>
                ))}
              </td>
              <td class="small">
                {r.approved_at && `approved ${when(r.approved_at)}${r.comment ? `: ${r.comment}` : ''}`}
                {r.rejected_at && `rejected ${when(r.rejected_at)}: ${r.reason}`}
              </td>
              <td class="actions">
                {r.status === 'generated' && (
                  <>
                    <button
                      type="button"
                      disabled={act.busy}
                      aria-label={`Approve ${r.title ?? r.id}`}
                      onClick={() => act.run(async () => (await api.approveReport(r.id, comment || undefined), setComment(''), reports.reload()))}
                    >
                      Approve
                    </button>
                    <button
                      type="button"
                      class="danger"
                      disabled={act.busy || !comment}
                      aria-label={`Reject ${r.title ?? r.id}`}
                      title={comment ? undefined : 'Write the reason first'}
                      onClick={() => act.run(async () => (await api.rejectReport(r.id, comment), setComment(''), reports.reload()))}
                    >
                      Reject
                    </button>
                  </>
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
