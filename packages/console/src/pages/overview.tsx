import { useEffect, useState } from 'preact/hooks';
import { api, type Json } from '../api';
import { ALARM_LEVELS, countsText, LevelBadge, rank } from '../alarm-state';
import { href } from '../router';
import { ErrorNotice, Field, PageTitle, useAction, useLoad } from '../ui';
import { inZone } from '../time';
import { label } from '../transitions';

/** How often the overview asks again: a person keeps it open on a wall or a phone. */
const REFRESH_MS = 30_000;

const SHOW: [string, string][] = [
  ['open', 'Unacknowledged'],
  ['acknowledged', 'Acknowledged'],
  ['cleared', 'Cleared'],
  ['', 'All'],
];

/**
 * What needs attention, the console's first page: every project coloured by the highest level
 * of its open alarms, and the alarm inbox across projects (GET /alarms), where an alarm is
 * acknowledged with a comment without leaving the page.
 */
export function Overview() {
  const [status, setStatus] = useState('open');
  const [level, setLevel] = useState('');
  const projects = useLoad(() => api.listProjects(), []);
  const inbox = useLoad(() => api.listInbox({ status, level }), [status, level]);
  useEffect(() => {
    const every = setInterval(() => (projects.reload(), inbox.reload()), REFRESH_MS);
    return () => clearInterval(every);
  }, []);
  const names = usePointNames(inbox.data?.items ?? []);
  const projectName = new Map((projects.data?.items ?? []).map((p) => [p.id as string, p]));
  const changed = () => (projects.reload(), inbox.reload());

  return (
    <section>
      <PageTitle>Overview</PageTitle>
      <ErrorNotice error={projects.error} />
      <h2 id="sites">Projects</h2>
      <ul class="tiles" aria-labelledby="sites">
        {[...(projects.data?.items ?? [])]
          .sort((a, b) => rank(b.open_alarms?.highest_level) - rank(a.open_alarms?.highest_level) || (b.open_alarms?.count ?? 0) - (a.open_alarms?.count ?? 0))
          .map((p) => (
            <li key={p.id}>
              <a class={`tile level-${p.open_alarms?.highest_level ?? 'none'}`} href={href('projects', p.id)}>
                <strong>{p.name}</strong>
                <span class="small">{p.number}</span>
                <span>{countsText(p.open_alarms)}</span>
                {p.open_alarms?.unacknowledged > 0 && <span class="small">{p.open_alarms.unacknowledged} not acknowledged</span>}
              </a>
            </li>
          ))}
      </ul>
      {projects.data && projects.data.items.length === 0 && <p class="muted">No projects yet.</p>}

      <h2 id="inbox">Alarms</h2>
      <div class="row controls">
        <Field label="Show" id="inbox-status">
          <select id="inbox-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            {SHOW.map(([v, text]) => (
              <option key={v} value={v}>
                {text}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Level" id="inbox-level">
          <select id="inbox-level" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {ALARM_LEVELS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <ErrorNotice error={inbox.error} />
      <ul class="inbox" aria-labelledby="inbox">
        {inbox.data?.items.map((a) => (
          <AlarmItem key={a.alarm_id} alarm={a} project={projectName.get(a.project_id)} point={names.get(a.point_id)} onChanged={changed} />
        ))}
      </ul>
      {inbox.data && inbox.data.items.length === 0 && <p class="muted">Nothing here: no alarm matches.</p>}
      {inbox.data?.has_more && <p class="muted small">The newest 100 are shown; narrow the filters to see others.</p>}
    </section>
  );
}

function AlarmItem({ alarm: a, project, point, onChanged }: { alarm: Json; project: Json | undefined; point: Json | undefined; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const [comment, setComment] = useState('');
  const ack = useAction();
  const pointLabel = point ? `${point.number} · ${point.name}` : a.point_id;
  const formId = `ack-${a.alarm_id}`;
  return (
    <li class={`alarm level-${a.level}`} aria-label={`${a.level} at ${pointLabel}`}>
      <div class="alarm-head">
        <LevelBadge level={a.level} />
        <a href={href('points', a.point_id)}>{pointLabel}</a>
        <span class="muted small">{project ? project.name : a.project_id}</span>
      </div>
      <p class="reason">{a.reason}</p>
      <p class="muted small">
        {label(a.rule)} · opened {inZone(a.opened_at, project?.time_zone ?? 'UTC')} · {a.status}
        {a.acknowledged && ` by ${a.acknowledged.by?.principal_id ?? '—'}${a.acknowledged.comment ? `: “${a.acknowledged.comment}”` : ''}`}
      </p>
      {a.status === 'open' && !open && (
        <button type="button" onClick={() => setOpen(true)} aria-controls={formId}>
          Acknowledge…
        </button>
      )}
      {open && (
        <form
          id={formId}
          class="ack"
          onSubmit={(e) => {
            e.preventDefault();
            ack.run(async () => {
              await api.acknowledgeAlarm(a.alarm_id, comment.trim() || undefined);
              setOpen(false);
              onChanged();
            });
          }}
        >
          <ErrorNotice error={ack.error} />
          <Field label="Comment (optional)" id={`${formId}-comment`}>
            <textarea id={`${formId}-comment`} maxLength={500} rows={2} value={comment} onInput={(e) => setComment((e.target as HTMLTextAreaElement).value)} />
          </Field>
          <div class="actions">
            <button type="submit" class="primary" disabled={ack.busy}>
              Acknowledge
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </li>
  );
}

/** Number and name of the points the alarms name: one point list per project that has such alarms. */
function usePointNames(alarms: Json[]): Map<string, Json> {
  const projects = [...new Set(alarms.map((a) => a.project_id as string))].sort();
  const lists = useLoad(() => Promise.all(projects.map((id) => api.listPoints(id).catch(() => ({ items: [] })))), [projects.join()]);
  return new Map((lists.data ?? []).flatMap((l) => l.items.map((p: Json) => [p.id as string, p] as const)));
}
