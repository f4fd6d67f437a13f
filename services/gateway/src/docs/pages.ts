import { catalogue, errorCodes, type ErrorEntry } from '@mp/errors';

// The public HTML pages under /docs: the API reference frame and one page per error code (the
// page every error's meta.documentation_url names). Plain HTML and one stylesheet of our own;
// the reference's script is served from the swagger-ui-dist package (docs-routes.ts).

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/docs.css">
${head}
</head>
<body>
${body}
</body>
</html>`;
}

/** GET /docs: the reference, rendered in the browser from /v3/openapi.json by Swagger UI. */
export function referencePage(): string {
  return layout(
    'API reference — Monitoring Platform',
    `<header class="bar"><strong>Monitoring Platform API</strong> <a href="/v3/openapi.json">openapi.json</a> <a href="/docs/errors">Error codes</a></header>
<main id="reference"><noscript>The reference needs JavaScript; the document itself is <a href="/v3/openapi.json">/v3/openapi.json</a>.</noscript></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/reference.js"></script>`,
    '<link rel="stylesheet" href="/docs/assets/swagger-ui.css">',
  );
}

/** Starts Swagger UI on the document of this deployment (served as a file: the CSP allows no inline script). */
export const REFERENCE_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/v3/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
  tryItOutEnabled: false,
});
`;

export const DOCS_STYLE = `body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #fff; }
.bar { background: #1b1f24; color: #fff; padding: 0.6rem 1.5rem; display: flex; gap: 1.5rem; align-items: baseline; }
.bar a { color: #9ecbff; }
article, .index { max-width: 48rem; margin: 1.5rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.6rem; }
code, pre { background: #eef0f3; border-radius: 3px; }
code { padding: 0 0.25rem; }
pre { padding: 0.75rem; overflow-x: auto; }
.muted { color: #57606a; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; border-bottom: 1px solid #d0d7de; padding: 0.3rem 0.5rem; vertical-align: top; }
`;

const list = (items: string[]) => `<ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;

/** GET /docs/errors/{code}: what the code means, why it happens, what to do, and a request that avoids it. */
export function errorPage(e: ErrorEntry): string {
  const status = e.code.slice(0, 3);
  return layout(
    `${e.code} ${e.message} — Monitoring Platform API`,
    `<header class="bar"><strong>Monitoring Platform API</strong> <a href="/docs">Reference</a> <a href="/docs/errors">Error codes</a></header>
<article>
<h1><code>${e.code}</code> ${escapeHtml(e.message)}</h1>
<p class="muted">HTTP ${status} · category <code>${escapeHtml(e.category)}</code></p>
<p>${escapeHtml(e.suggestion)}</p>
<h2>Common causes</h2>
${list(e.commonCauses)}
<h2>Solutions</h2>
${list(e.solutions)}
<h2>Example</h2>
<p>A request that meets this error:</p>
<pre>${escapeHtml(JSON.stringify(e.example.request, null, 2))}</pre>
<p>The corrected request:</p>
<pre>${escapeHtml(JSON.stringify(e.example.correct, null, 2))}</pre>
<h2>The answer's shape</h2>
<pre>${escapeHtml(
      JSON.stringify(
        {
          code: Number(e.code),
          message: e.message,
          data: { field: '…', detail: '…', suggestion: '…' },
          meta: { request_id: 'req_…', timestamp: '…', documentation_url: `…/docs/errors/${e.code}` },
        },
        null,
        2,
      ),
    )}</pre>
</article>`,
  );
}

/** GET /docs/errors: every code, linked to its page. */
export function errorIndexPage(): string {
  const rows = errorCodes
    .map((c) => catalogue[c]!)
    .map((e) => `<tr><td><a href="/docs/errors/${e.code}"><code>${e.code}</code></a></td><td>${escapeHtml(e.message)}</td></tr>`)
    .join('\n');
  return layout(
    'Error codes — Monitoring Platform API',
    `<header class="bar"><strong>Monitoring Platform API</strong> <a href="/docs">Reference</a></header>
<div class="index">
<h1>Error codes</h1>
<p>Every refusal is <code>{ code, message, data: { field, detail, suggestion }, meta }</code>; the first three digits of the code are the HTTP status.</p>
<table><thead><tr><th>Code</th><th>Meaning</th></tr></thead><tbody>
${rows}
</tbody></table>
</div>`,
  );
}
