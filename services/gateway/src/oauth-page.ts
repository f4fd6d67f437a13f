import { randomBytes } from 'node:crypto';
import { PERMISSION_MEANINGS, type identity } from '@mp/contracts';
import type { DomainError } from '@mp/errors';
import type { GatewayContext } from './state.js';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The cookie that carries a consent form's CSRF token (double submit, one per pending authorization). */
export const csrfCookieName = (requestId: string) => `mp_oauth_csrf_${requestId.replace(/[^0-9a-z]/gi, '')}`;

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1b1f24; }
  main { max-width: 32rem; margin: 2rem auto; background: #fff; padding: 1.5rem 2rem; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
  h1 { font-size: 1.4rem; margin-top: 0; }
  fieldset { border: 1px solid #c9ced6; border-radius: 6px; margin: 1rem 0; padding: 0.75rem 1rem; }
  legend { font-weight: 600; padding: 0 0.25rem; }
  label { display: block; margin-top: 0.75rem; font-weight: 600; }
  input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: 0.5rem; font: inherit; border: 1px solid #767c85; border-radius: 4px; }
  input:focus-visible, button:focus-visible { outline: 3px solid #1f6feb; outline-offset: 2px; }
  .actions { display: flex; gap: 0.75rem; margin-top: 1.25rem; }
  button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 4px; border: 1px solid #1b1f24; cursor: pointer; }
  button.allow { background: #1a7f37; border-color: #1a7f37; color: #fff; }
  button.deny { background: #fff; color: #1b1f24; }
  .error { border-left: 4px solid #cf222e; background: #ffebe9; padding: 0.5rem 0.75rem; }
  code { background: #eef0f3; padding: 0 0.25rem; border-radius: 3px; }
  .muted { color: #57606a; font-size: 0.9rem; }`;

/**
 * Security headers of every page: no framing (clickjacking), no caching, no referrer (the query
 * holds the state), a CSP without scripts whose form-action allows only this service and the
 * application's redirect origin (a browser applies form-action to the redirect that follows the
 * form post).
 */
export function pageHeaders(ctx: GatewayContext, nonce: string, redirectOrigin: string | null): void {
  ctx.set({
    'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'${redirectOrigin ? ` ${redirectOrigin}` : ''}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  });
  ctx.type = 'text/html; charset=utf-8';
}

export function layout(title: string, nonce: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

/**
 * The login and consent page of GET /oauth/authorize: who asks, for which permissions, a sign-in
 * form and Allow / Deny. Plain HTML, no script: labelled fields, the permissions in a fieldset
 * with a legend, a sign-in error announced with role="alert" and tied to the fields, Deny usable
 * without filling in the form. The form posts back to this URL with the pending authorization's
 * id and CSRF token (also set as a SameSite=Strict cookie, double submit).
 */
export function renderConsentPage(ctx: GatewayContext, prompt: identity.AuthorizationPrompt, error?: { code: string; detail: string }, username = ''): void {
  const state = ctx.state;
  const nonce = randomBytes(16).toString('base64');
  const client = escapeHtml(prompt.clientName);
  const redirect = new URL(prompt.redirectUri);
  const errorId = 'signin-error';
  const described = error ? ` aria-describedby="${errorId}" aria-invalid="true"` : '';
  const permissions = prompt.scope
    .map((p) => `<li><code>${escapeHtml(p)}</code> — ${escapeHtml((PERMISSION_MEANINGS as Readonly<Record<string, string>>)[p] ?? p)}</li>`)
    .join('\n        ');
  const body = `<h1>Allow ${client} to use your account?</h1>
<p id="intro"><strong>${client}</strong> asks to access the Monitoring Platform ${state.environment === 'sandbox' ? '<strong>sandbox</strong>' : ''} on your behalf. Sign in to allow it, or deny the request.</p>
${error ? `<p class="error" id="${errorId}" role="alert">${escapeHtml(error.detail)} <span class="muted">(error ${escapeHtml(error.code)})</span></p>` : ''}
<form method="post" action="authorize" aria-describedby="intro">
  <input type="hidden" name="request_id" value="${escapeHtml(prompt.requestId)}">
  <input type="hidden" name="csrf_token" value="${escapeHtml(prompt.csrfToken)}">
  <fieldset>
    <legend>${client} will be able to</legend>
    <ul>
        ${permissions}
    </ul>
    <p class="muted">Only permissions your account holds are granted.</p>
  </fieldset>
  <fieldset>
    <legend>Sign in</legend>
    <label for="username">Username</label>
    <input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(username)}"${described}>
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required${described}>
  </fieldset>
  <p class="muted">You will then be sent back to <strong>${escapeHtml(redirect.host)}</strong>.</p>
  <div class="actions">
    <button type="submit" class="allow" name="decision" value="allow">Allow</button>
    <button type="submit" class="deny" name="decision" value="deny" formnovalidate>Deny</button>
  </div>
</form>`;
  pageHeaders(ctx, nonce, redirect.origin);
  ctx.status = error ? Number(error.code.slice(0, 3)) : 200;
  ctx.body = layout(`Sign in to allow ${prompt.clientName} — Monitoring Platform`, nonce, body);
}

/**
 * The error page: shown instead of redirecting when the request cannot be trusted to go back to
 * the application (unknown client, unregistered redirect URI, forged or expired form), and for
 * refusals of the page itself (429005). Status and headers are the error's.
 */
export function renderErrorPage(ctx: GatewayContext, err: DomainError): void {
  const state = ctx.state;
  const nonce = randomBytes(16).toString('base64');
  const body = `<h1>This sign-in cannot continue</h1>
<p class="error" role="alert">${escapeHtml(err.detail)}</p>
<p>${escapeHtml(err.suggestion)}</p>
<p class="muted">Error ${escapeHtml(err.code)} (${escapeHtml(err.entry.message)})${err.field ? `, field <code>${escapeHtml(err.field)}</code>` : ''}. Request id <code>${escapeHtml(state.requestId)}</code>.</p>`;
  pageHeaders(ctx, nonce, null);
  for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
  ctx.status = err.httpStatus;
  ctx.body = layout('Sign-in error — Monitoring Platform', nonce, body);
}
