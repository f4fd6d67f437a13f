import { randomBytes } from 'node:crypto';
import type { webhooks } from '@mp/contracts';
import type { DomainError } from '@mp/errors';
import { escapeHtml, layout, pageHeaders } from './oauth-page.js';
import type { GatewayContext } from './state.js';

/**
 * The pages of a notification mail's acknowledge link (ADR 0090): HTML the gateway serves, no
 * script. GET shows what the link acknowledges and a form; only the form's POST acknowledges, so a
 * mail scanner that opens every link acknowledges nothing.
 */
function facts(link: webhooks.AckLink): string {
  const rows: [string, string][] = [
    ['Project', link.projectName],
    ['Point', link.pointName],
  ];
  if (link.channel) rows.push(['Channel', link.channel]);
  if (link.value !== undefined) rows.push(['Value', String(link.value)]);
  rows.push(['Level', link.level]);
  if (link.measuredAt) rows.push(['Time', `${link.measuredAt} (UTC)`]);
  rows.push(['Reason', link.reason]);
  return `<dl>${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

function render(ctx: GatewayContext, status: number, title: string, body: string): void {
  const nonce = randomBytes(16).toString('base64');
  pageHeaders(ctx, nonce, null);
  ctx.status = status;
  ctx.body = layout(`${title} — Monitoring Platform`, nonce, body);
}

export function renderAckConfirmation(ctx: GatewayContext, link: webhooks.AckLink): void {
  render(
    ctx,
    200,
    'Acknowledge alarm',
    `<h1>Acknowledge this alarm?</h1>
${facts(link)}
<form method="post">
  <label for="comment">Comment (optional)</label>
  <input type="text" id="comment" name="comment" maxlength="500">
  <p class="muted">You acknowledge as <strong>${escapeHtml(link.recipient)}</strong>. The link works once, until ${escapeHtml(link.expiresAt)} (UTC).</p>
  <div class="actions"><button type="submit" class="allow">Acknowledge</button></div>
</form>
<p><a href="${escapeHtml(link.pointUrl)}">Open the point in the console</a></p>`,
  );
}

export function renderAcknowledged(ctx: GatewayContext, link: webhooks.AckLink): void {
  render(
    ctx,
    200,
    'Alarm acknowledged',
    `<h1>Alarm acknowledged</h1>
<p role="status">Acknowledged by <strong>${escapeHtml(link.recipient)}</strong> at ${escapeHtml(link.acknowledgedAt ?? '')} (UTC). Reminders for it stop.</p>
${facts(link)}
<p><a href="${escapeHtml(link.pointUrl)}">Open the point in the console</a></p>`,
  );
}

export function renderAckError(ctx: GatewayContext, err: DomainError): void {
  for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
  render(
    ctx,
    err.httpStatus,
    'Acknowledge link',
    `<h1>This link cannot acknowledge the alarm</h1>
<p class="error" role="alert">${escapeHtml(err.detail)}</p>
<p>${escapeHtml(err.suggestion)}</p>
<p class="muted">Error ${escapeHtml(err.code)} (${escapeHtml(err.entry.message)}). Request id <code>${escapeHtml(ctx.state.requestId)}</code>.</p>`,
  );
}
