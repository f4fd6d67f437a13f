import type { EventPayload } from '@mp/events';

/** The alarm as a mail shows it: the data of its latest alarm.opened / alarm.escalated. */
export type AlarmSnapshot = EventPayload<'alarm.opened'>;

export type MailKind = 'opened' | 'escalated' | 'reminder' | 'escalation';

const HEADLINE: Record<MailKind, string> = {
  opened: 'alarm opened',
  escalated: 'level rose',
  reminder: 'still not acknowledged',
  escalation: 'not acknowledged in time',
};

export function subjectOf(kind: MailKind, a: AlarmSnapshot): string {
  return `[${a.level.toUpperCase()}] ${a.project_name} / ${a.point_name}: ${HEADLINE[kind]}`.slice(0, 250);
}

/** The point's page in the console (hash route), from the environment's public base URL (…/v3). */
export function pointUrl(baseUrl: string, pointId: string): string {
  return new URL(`/console#/points/${encodeURIComponent(pointId)}`, baseUrl).toString();
}

/** The confirmation page of an acknowledge link. */
export function ackUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/$/, '')}/alarm-ack/${token}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface Links {
  point: string;
  ack: string;
  ackExpiresAt: string;
}

/** The facts of the alarm, in the order a person on duty reads them. */
function facts(a: AlarmSnapshot): [string, string][] {
  const rows: [string, string][] = [
    ['Project', a.project_name],
    ['Point', `${a.point_name} (${a.point_id})`],
  ];
  if (a.channel) rows.push(['Channel', a.channel]);
  rows.push(
    ['Value', a.value === null ? '—' : String(a.value)],
    ['Level', a.level],
    ['Time', `${a.measured_at ?? a.at} (UTC)`],
    ['Reason', a.reason],
    ['Alarm', a.alarm_id],
  );
  return rows;
}

const intro = (kind: MailKind, reminders: number) =>
  kind === 'opened'
    ? 'An alarm was opened.'
    : kind === 'escalated'
      ? 'The level of an alarm rose; it needs acknowledging again.'
      : kind === 'reminder'
        ? `Reminder ${reminders}: this alarm is still open and nobody has acknowledged it.`
        : 'Nobody acknowledged this alarm in time; you are on its escalation list.';

export function textOf(kind: MailKind, a: AlarmSnapshot, links: Links, reminders = 0): string {
  return [
    intro(kind, reminders),
    '',
    ...facts(a).map(([k, v]) => `${`${k}:`.padEnd(9)}${v}`),
    '',
    `Open the point: ${links.point}`,
    '',
    `Acknowledge (asks you to confirm; works once, until ${links.ackExpiresAt}):`,
    links.ack,
    '',
  ].join('\n');
}

export function htmlOf(kind: MailKind, a: AlarmSnapshot, links: Links, reminders = 0): string {
  const rows = facts(a)
    .map(([k, v]) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif">
<p>${escapeHtml(intro(kind, reminders))}</p>
<table>${rows}</table>
<p><a href="${escapeHtml(links.point)}">Open the point in the console</a></p>
<p><a href="${escapeHtml(links.ack)}">Acknowledge this alarm</a> (asks you to confirm; works once, until ${escapeHtml(links.ackExpiresAt)})</p>
</body></html>`;
}
