import { useEffect, useState } from 'preact/hooks';
import { api, type Json, type Page } from '../api';
import { href } from '../router';
import { DEVICE_TYPES, MEMBER_ROLES, PROJECT_MOVES, SENSOR_TYPES, TASK_MOVES, label } from '../transitions';
import { Badge, ErrorNotice, Field, PageTitle, useAction, useLoad } from '../ui';
import { fromWallTime, inZone } from '../time';
import { isGeodetic } from '@mp/contracts/vocabulary';
import { PROJECT_TONE } from './projects';
import { countsText, LevelBadge, pointState } from '../alarm-state';
import { SitePlan } from './site-plan';
import { ComparePoints } from './compare-points';
import { SurveyRound } from './survey-round';
import { NotificationRules } from './notification-rules';
import { Imports } from './imports';

const value = (e: Event) => (e.target as HTMLInputElement).value;

/** One project: status moves, points (with thresholds), devices, tasks (overdue marked) and members. */
export function ProjectDetail({ projectId }: { projectId: string }) {
  const project = useLoad(() => api.getProject(projectId), [projectId]);
  // One list for the device table and the point form's choice, so a new device is offered at once.
  const devices = useLoad(() => api.listDevices(), []);
  // One list for the site plan and the point table, so a new point is drawn at once; read again
  // now and then, so the plan's colours follow the readings while the page stays open.
  const points = useLoad(() => api.listPoints(projectId), [projectId]);
  useEffect(() => {
    const every = setInterval(points.reload, REFRESH_MS);
    return () => clearInterval(every);
  }, []);
  const move = useAction();
  const p = project.data;
  // Every time on this page is the site's clock: the project's time_zone, named beside each time.
  const zone: string = p?.time_zone ?? 'UTC';
  return (
    <section>
      <p class="crumbs">
        <a href={href('projects')}>Projects</a> ›
      </p>
      <PageTitle>{p ? `${p.name} (${p.number})` : 'Project'}</PageTitle>
      <ErrorNotice error={project.error} />
      {p && (
        <div class="card">
          <h2>Status</h2>
          <p>
            Now <Badge tone={PROJECT_TONE[p.status] ?? 'idle'}>{label(p.status)}</Badge>
            {p.start_date && <span class="muted"> · starts {p.start_date}</span>}
          </p>
          <p id="project-alarms">
            Open alarms: {p.open_alarms?.highest_level && <LevelBadge level={p.open_alarms.highest_level} />}
            {countsText(p.open_alarms)}
          </p>
          <ErrorNotice error={move.error} />
          <div class="actions">
            {(PROJECT_MOVES[p.status] ?? []).map((s) => (
              <button
                key={s}
                type="button"
                disabled={move.busy}
                onClick={() => move.run(async () => (await api.changeProjectStatus(p.id, s), project.reload()))}
              >
                Move to {label(s)}
              </button>
            ))}
            {(PROJECT_MOVES[p.status] ?? []).length === 0 && <span class="muted">An archived project can no longer change.</span>}
          </div>
        </div>
      )}
      <SitePlan projectId={projectId} points={points} zone={zone} />
      <Points projectId={projectId} points={points} devices={devices.data?.items ?? []} zone={zone} />
      <SurveyRound projectId={projectId} points={points} zone={zone} onWritten={points.reload} />
      <ComparePoints points={points} />
      <Devices devices={devices} />
      <Tasks projectId={projectId} zone={zone} />
      <Members projectId={projectId} zone={zone} />
      <NotificationRules projectId={projectId} />
      <Imports projectId={projectId} points={points} />
    </section>
  );
}

/** How often the project's points (and so the site plan) are read again while the page is open. */
const REFRESH_MS = 30_000;

function Points({ projectId, points, devices, zone }: { projectId: string; points: ReturnType<typeof useLoad<Page<Json>>>; devices: Json[]; zone: string }) {
  const empty = { number: '', name: '', sensor_type: 'total_station', x: '0', y: '0', z: '0', warning: '10', alarm: '20', device_id: '' };
  const [f, setF] = useState(empty);
  const create = useAction();
  const set = (k: keyof typeof empty) => (e: Event) => setF({ ...f, [k]: value(e) });
  const geodetic = isGeodetic(f.sensor_type);
  // An instrument's coordinates are sent only when all three are typed in.
  const located = !geodetic && [f.x, f.y, f.z].every((v) => v.trim() !== '');
  const chooseType = (e: Event) => {
    const next = value(e);
    // Geodetic types start from 0 0 0 (a reference is required); instruments from empty inputs.
    const coords = isGeodetic(next) ? { x: '0', y: '0', z: '0' } : { x: '', y: '', z: '' };
    setF({ ...f, sensor_type: next, ...(isGeodetic(next) === geodetic ? {} : coords) });
  };
  const coordinate = geodetic ? 'Reference' : 'Location (optional)';
  return (
    <div class="card">
      <h2 id="points">Monitoring points</h2>
      <form
        aria-labelledby="points"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(async () => {
            await api.createPoint(projectId, {
              number: f.number,
              name: f.name,
              sensor_type: f.sensor_type,
              // An instrument has no displacement thresholds (its limits are trigger levels, set
              // with Edit on the point's page); its coordinates are optional, for the site plan.
              ...(geodetic || located ? { reference: { x: Number(f.x), y: Number(f.y), z: Number(f.z) } } : {}),
              ...(geodetic ? { thresholds: { warning: Number(f.warning), alarm: Number(f.alarm) } } : {}),
              ...(f.device_id ? { device_id: f.device_id } : {}),
            });
            setF({ ...empty });
            points.reload();
          });
        }}
      >
        <ErrorNotice error={create.error} />
        <div class="row">
          <Field label="Point number" id="pt-number">
            <input id="pt-number" required value={f.number} onInput={set('number')} />
          </Field>
          <Field label="Point name" id="pt-name">
            <input id="pt-name" required value={f.name} onInput={set('name')} />
          </Field>
          <Field label="Sensor type" id="pt-sensor">
            <select id="pt-sensor" value={f.sensor_type} onChange={chooseType}>
              {SENSOR_TYPES.map((s) => (
                <option key={s} value={s}>
                  {label(s)}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Device (optional)" id="pt-device">
            <select id="pt-device" value={f.device_id} onChange={set('device_id')}>
              <option value="">none</option>
              {devices.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name ?? d.serial_number} ({d.model})
                </option>
              ))}
            </select>
          </Field>
        </div>
        <div class="row">
          <Field label={`${coordinate} x (m)`} id="pt-x">
            <input id="pt-x" type="number" step="any" required={geodetic} value={f.x} onInput={set('x')} />
          </Field>
          <Field label={`${coordinate} y (m)`} id="pt-y">
            <input id="pt-y" type="number" step="any" required={geodetic} value={f.y} onInput={set('y')} />
          </Field>
          <Field label={`${coordinate} z (m)`} id="pt-z">
            <input id="pt-z" type="number" step="any" required={geodetic} value={f.z} onInput={set('z')} />
          </Field>
          {geodetic ? (
            <>
              <Field label="Warning threshold (mm)" id="pt-warning">
                <input id="pt-warning" type="number" step="any" min="0" required value={f.warning} onInput={set('warning')} />
              </Field>
              <Field label="Alarm threshold (mm)" id="pt-alarm">
                <input id="pt-alarm" type="number" step="any" min="0" required value={f.alarm} onInput={set('alarm')} />
              </Field>
            </>
          ) : (
            <p class="muted small">A {label(f.sensor_type)} takes trigger levels on its channels: set them with Edit on the point's page.</p>
          )}
        </div>
        <button type="submit" class="primary" disabled={create.busy}>
          Add point
        </button>
      </form>
      <ErrorNotice error={points.error} />
      <table>
        <caption>Points of this project</caption>
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Name</th>
            <th scope="col">Sensor</th>
            <th scope="col">Warning / alarm (mm)</th>
            <th scope="col">Device</th>
            <th scope="col">State</th>
            <th scope="col">Last reading</th>
          </tr>
        </thead>
        <tbody>
          {points.data?.items.map((pt) => (
            <tr key={pt.id}>
              <td>{pt.number}</td>
              <th scope="row">
                <a href={href('points', pt.id)}>{pt.name}</a>
              </th>
              <td>{label(pt.sensor_type)}</td>
              <td>{pt.thresholds ? `${pt.thresholds.warning} / ${pt.thresholds.alarm}` : '—'}</td>
              <td class="small">{pt.device_id ? (devices.find((d) => d.id === pt.device_id)?.name ?? pt.device_id) : '—'}</td>
              <td>
                <span class={`state ${pointState(pt).cls}`}>{pointState(pt).text}</span>
              </td>
              <td class="small">{inZone(pt.last_measured_at, zone)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Devices({ devices }: { devices: ReturnType<typeof useLoad<Page<Json>>> }) {
  const empty = { serial_number: '', model: '', type: 'total_station', name: '' };
  const [f, setF] = useState(empty);
  const create = useAction();
  const set = (k: keyof typeof empty) => (e: Event) => setF({ ...f, [k]: value(e) });
  return (
    <div class="card">
      <h2 id="devices">Devices</h2>
      <form
        aria-labelledby="devices"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(async () => {
            await api.createDevice({ serial_number: f.serial_number, model: f.model, type: f.type, ...(f.name ? { name: f.name } : {}) });
            setF({ ...empty });
            devices.reload();
          });
        }}
      >
        <ErrorNotice error={create.error} />
        <div class="row">
          <Field label="Serial number" id="dev-serial">
            <input id="dev-serial" required value={f.serial_number} onInput={set('serial_number')} />
          </Field>
          <Field label="Model" id="dev-model">
            <input id="dev-model" required value={f.model} onInput={set('model')} />
          </Field>
          <Field label="Device type" id="dev-type">
            <select id="dev-type" value={f.type} onChange={set('type')}>
              {DEVICE_TYPES.map((s) => (
                <option key={s} value={s}>
                  {label(s)}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Device name (optional)" id="dev-name">
            <input id="dev-name" value={f.name} onInput={set('name')} />
          </Field>
        </div>
        <button type="submit" disabled={create.busy}>
          Add device
        </button>
      </form>
      <table>
        <caption>Devices of the tenant</caption>
        <thead>
          <tr>
            <th scope="col">Serial number</th>
            <th scope="col">Name</th>
            <th scope="col">Model</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {devices.data?.items.map((d: Json) => (
            <tr key={d.id}>
              <th scope="row">{d.serial_number}</th>
              <td>{d.name ?? '—'}</td>
              <td>{d.model}</td>
              <td>{label(d.type)}</td>
              <td>{d.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Tasks({ projectId, zone }: { projectId: string; zone: string }) {
  const tasks = useLoad(() => api.listTasks(projectId), [projectId]);
  const [name, setName] = useState('');
  const [due, setDue] = useState('');
  const create = useAction();
  const move = useAction();
  return (
    <div class="card">
      <h2 id="tasks">Tasks</h2>
      <form
        aria-labelledby="tasks"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(async () => {
            await api.createTask(projectId, { name, ...(due ? { due_at: fromWallTime(due, zone) } : {}) });
            setName('');
            setDue('');
            tasks.reload();
          });
        }}
      >
        <ErrorNotice error={create.error} />
        <div class="row">
          <Field label="Task name" id="task-name">
            <input id="task-name" required value={name} onInput={(e) => setName(value(e))} />
          </Field>
          <Field label={`Due (optional, ${zone})`} id="task-due">
            <input id="task-due" type="datetime-local" value={due} onInput={(e) => setDue(value(e))} />
          </Field>
        </div>
        <button type="submit" disabled={create.busy}>
          Add task
        </button>
      </form>
      <ErrorNotice error={move.error ?? tasks.error} />
      <table>
        <caption>Tasks of this project</caption>
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Status</th>
            <th scope="col">Due</th>
            <th scope="col">Assignee</th>
            <th scope="col">Change status</th>
          </tr>
        </thead>
        <tbody>
          {tasks.data?.items.map((t) => (
            <tr key={t.id} class={t.overdue ? 'overdue' : ''}>
              <th scope="row">{t.name}</th>
              <td>
                <Badge tone={t.status === 'completed' ? 'good' : t.status === 'cancelled' ? 'idle' : 'info'}>{label(t.status)}</Badge>
                {t.overdue && <Badge tone="bad">overdue</Badge>}
              </td>
              <td class="small">{inZone(t.due_at, zone)}</td>
              <td>{t.assignee?.name ?? '—'}</td>
              <td class="actions">
                {(TASK_MOVES[t.status] ?? []).map((s) => (
                  <button
                    key={s}
                    type="button"
                    aria-label={`Move ${t.name} to ${label(s)}`}
                    disabled={move.busy}
                    onClick={() => move.run(async () => (await api.changeTaskStatus(t.id, s), tasks.reload()))}
                  >
                    {label(s)}
                  </button>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Members({ projectId, zone }: { projectId: string; zone: string }) {
  const members = useLoad(() => api.listMembers(projectId), [projectId]);
  const users = useLoad(() => api.listUsers().catch(() => ({ items: [], next_cursor: null, has_more: false })), []);
  const names = new Map((users.data?.items ?? []).map((u) => [u.id, u.name as string]));
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState('viewer');
  const change = useAction();
  return (
    <div class="card">
      <h2 id="members">Members</h2>
      <form
        aria-labelledby="members"
        onSubmit={(e) => {
          e.preventDefault();
          change.run(async () => {
            await api.addMember(projectId, userId, role);
            members.reload();
          });
        }}
      >
        <ErrorNotice error={change.error ?? members.error} />
        <div class="row">
          <Field label="User" id="member-user">
            <select id="member-user" required value={userId} onChange={(e) => setUserId(value(e))}>
              <option value="">choose…</option>
              {users.data?.items.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name} ({u.username})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Role" id="member-role">
            <select id="member-role" value={role} onChange={(e) => setRole(value(e))}>
              {MEMBER_ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <button type="submit" disabled={change.busy}>
          Add member
        </button>
      </form>
      <table>
        <caption>Members of this project</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Added</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {members.data?.items.map((m) => (
            <tr key={m.user_id}>
              <th scope="row">{m.name ?? names.get(m.user_id) ?? m.user_id}</th>
              <td>{m.role}</td>
              <td class="small">{inZone(m.created_at, zone)}</td>
              <td>
                <button
                  type="button"
                  class="danger"
                  aria-label={`Remove ${m.name ?? names.get(m.user_id) ?? m.user_id}`}
                  disabled={change.busy}
                  onClick={() => change.run(async () => (await api.removeMember(projectId, m.user_id), members.reload()))}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
