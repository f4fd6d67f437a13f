import { useState } from 'preact/hooks';
import { api } from '../api';
import { countsText, LevelBadge } from '../alarm-state';
import { href } from '../router';
import { Badge, ErrorNotice, Field, PageTitle, useAction, useLoad, when } from '../ui';

export const PROJECT_TONE: Record<string, string> = { not_started: 'idle', in_progress: 'good', paused: 'warn', completed: 'info', archived: 'idle' };

export function Projects() {
  const [status, setStatus] = useState('');
  const list = useLoad(() => api.listProjects({ status }), [status]);
  const [form, setForm] = useState({ name: '', number: '', description: '', start_date: '' });
  const create = useAction();
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });

  return (
    <section>
      <PageTitle>Projects</PageTitle>
      <form
        class="card"
        aria-labelledby="new-project"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(async () => {
            await api.createProject({
              name: form.name,
              number: form.number,
              ...(form.description ? { description: form.description } : {}),
              ...(form.start_date ? { start_date: form.start_date } : {}),
            });
            setForm({ name: '', number: '', description: '', start_date: '' });
            list.reload();
          });
        }}
      >
        <h2 id="new-project">Create a project</h2>
        <ErrorNotice error={create.error} />
        <div class="row">
          <Field label="Project name" id="project-name" hint="2 to 100 characters.">
            <input id="project-name" required minLength={2} maxLength={100} value={form.name} onInput={set('name')} aria-describedby="project-name-hint" />
          </Field>
          <Field label="Project number" id="project-number" hint="Unique in the tenant.">
            <input id="project-number" required value={form.number} onInput={set('number')} aria-describedby="project-number-hint" />
          </Field>
          <Field label="Start date (optional)" id="project-start">
            <input id="project-start" type="date" value={form.start_date} onInput={set('start_date')} />
          </Field>
        </div>
        <Field label="Description (optional)" id="project-description">
          <input id="project-description" value={form.description} onInput={set('description')} />
        </Field>
        <button type="submit" class="primary" disabled={create.busy}>
          Create project
        </button>
      </form>

      <div class="row controls">
        <Field label="Show status" id="project-filter">
          <select id="project-filter" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            {Object.keys(PROJECT_TONE).map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <ErrorNotice error={list.error} />
      <table>
        <caption>Projects</caption>
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Open alarms</th>
            <th scope="col">Start</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.items.map((p) => (
            <tr key={p.id}>
              <td>{p.number}</td>
              <th scope="row">
                <a href={href('projects', p.id)}>{p.name}</a>
              </th>
              <td>
                <Badge tone={PROJECT_TONE[p.status] ?? 'idle'}>{p.status.replace('_', ' ')}</Badge>
              </td>
              <td>
                {p.open_alarms?.highest_level && <LevelBadge level={p.open_alarms.highest_level} />}
                {countsText(p.open_alarms)}
              </td>
              <td class="small">{p.start_date ?? '—'}</td>
              <td class="small">{when(p.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.items.length === 0 && <p class="muted">No projects yet.</p>}
    </section>
  );
}
