import { useState } from 'preact/hooks';
import { ALARM_LEVELS } from '@mp/contracts/vocabulary';
import { api } from '../api';
import { ErrorNotice, Field, useAction, useLoad, when } from '../ui';

const value = (e: Event) => (e.target as HTMLInputElement).value;
const emails = (text: string) =>
  text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map((email) => ({ email }));
const minutes = (text: string) => (text.trim() === '' ? null : Math.round(Number(text) * 60));

/**
 * A project's notification rules (docs/notifications.md): who is mailed about its alarms,
 * reminded and escalated to. Says so plainly when the platform has no SMTP server configured.
 */
export function NotificationRules({ projectId }: { projectId: string }) {
  const rules = useLoad(() => api.listNotificationRules(projectId), [projectId]);
  const empty = { name: '', recipients: '', reminder: '', escalateAfter: '', escalateTo: '' };
  const [f, setF] = useState(empty);
  const [levels, setLevels] = useState<string[]>(['alarm', 'action']);
  const change = useAction();
  const set = (k: keyof typeof empty) => (e: Event) => setF({ ...f, [k]: value(e) });
  return (
    <div class="card">
      <h2 id="notification-rules">Notification rules</h2>
      {rules.data && !rules.data.mail_configured && (
        <div class="notice" role="status">
          <p>
            Mail is not configured on this platform (<code>MP_SMTP_URL</code> is not set): rules are kept, but no mail is sent until an operator sets it.
          </p>
        </div>
      )}
      <form
        aria-labelledby="notification-rules"
        onSubmit={(e) => {
          e.preventDefault();
          change.run(async () => {
            const after = minutes(f.escalateAfter);
            await api.createNotificationRule(projectId, {
              name: f.name,
              levels,
              recipients: emails(f.recipients),
              reminder_interval_seconds: minutes(f.reminder),
              escalation: after === null ? null : { after_seconds: after, recipients: emails(f.escalateTo) },
            });
            setF(empty);
            rules.reload();
          });
        }}
      >
        <ErrorNotice error={change.error ?? rules.error} />
        <div class="row">
          <Field label="Name" id="rule-name">
            <input id="rule-name" required maxLength={100} value={f.name} onInput={set('name')} />
          </Field>
          <Field label="Recipients" id="rule-recipients" hint="E-mail addresses, separated by commas">
            <input id="rule-recipients" required value={f.recipients} onInput={set('recipients')} />
          </Field>
        </div>
        <fieldset>
          <legend>Levels</legend>
          {ALARM_LEVELS.map((l) => (
            <label key={l} class="check">
              <input
                type="checkbox"
                checked={levels.includes(l)}
                onChange={(e) => setLevels((e.target as HTMLInputElement).checked ? [...levels, l] : levels.filter((x) => x !== l))}
              />{' '}
              {l}
            </label>
          ))}
        </fieldset>
        <div class="row">
          <Field label="Remind every (minutes)" id="rule-reminder" hint="Empty: no reminders">
            <input id="rule-reminder" type="number" min="1" value={f.reminder} onInput={set('reminder')} />
          </Field>
          <Field label="Escalate after (minutes)" id="rule-escalate-after" hint="Empty: no escalation">
            <input id="rule-escalate-after" type="number" min="1" value={f.escalateAfter} onInput={set('escalateAfter')} />
          </Field>
          <Field label="Escalate to" id="rule-escalate-to" hint="E-mail addresses">
            <input id="rule-escalate-to" value={f.escalateTo} onInput={set('escalateTo')} />
          </Field>
        </div>
        <button type="submit" disabled={change.busy}>
          Add rule
        </button>
      </form>
      <table>
        <caption>Who is mailed about this project's alarms</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Levels</th>
            <th scope="col">Recipients</th>
            <th scope="col">Reminders</th>
            <th scope="col">Escalation</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rules.data?.items.map((r) => (
            <tr key={r.id}>
              <th scope="row">{r.name}</th>
              <td>{(r.levels as string[]).join(', ')}</td>
              <td>{(r.recipients as { email: string }[]).map((x) => x.email).join(', ')}</td>
              <td>{r.reminder_interval_seconds ? `every ${r.reminder_interval_seconds / 60} min` : '—'}</td>
              <td>
                {r.escalation
                  ? `after ${r.escalation.after_seconds / 60} min to ${(r.escalation.recipients as { email: string }[]).map((x) => x.email).join(', ')}`
                  : '—'}
              </td>
              <td class="small">{when(r.created_at)}</td>
              <td>
                <button
                  type="button"
                  class="danger"
                  aria-label={`Delete rule ${r.name}`}
                  disabled={change.busy}
                  onClick={() => change.run(async () => (await api.deleteNotificationRule(r.id), rules.reload()))}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
