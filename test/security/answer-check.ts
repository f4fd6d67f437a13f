import type { GatewayRoute } from '@mp/gateway';
import type { RawResponse } from './raw-https.js';

/** Endpoints that answer a browser with HTML pages (the OAuth sign-in and consent), not JSON. */
// The OAuth consent page and a notification's acknowledge page (docs/notifications.md) answer
// people in a browser: HTML, refusals included.
const BROWSER_PAGES = new Set(['GET /v3/oauth/authorize', 'POST /v3/oauth/authorize', 'GET /v3/alarm-ack/:token', 'POST /v3/alarm-ack/:token']);
/** The OpenAPI document: a plain JSON document, not an envelope. */
const DOCUMENTS = new Set(['GET /v3/openapi.json']);

/** The console's static files (docs/console.md): a 200 is the file itself; their errors are envelopes. */
const STATIC_FILES = new Set(['GET /console', 'GET /console/', 'GET /console/assets/:file']);

/** How an answer is counted: its status and, for JSON, its code. */
export interface Verdict {
  /** Why the answer breaks the contract; null when it keeps it. */
  problem: string | null;
  code: number | null;
}

/**
 * The fuzzer's oracle. An answer must be the error envelope (docs/rules.md#error-envelope) with a 4xx code whose
 * first three digits are the HTTP status, or a success (the mutated request happened to be valid).
 * Never a 5xx, never another shape. The OAuth browser pages answer HTML (their errors too).
 */
export function checkAnswer(route: GatewayRoute, res: RawResponse): Verdict {
  const key = `${route.method} ${route.path}`;
  if (res.status >= 500) return { problem: `HTTP ${res.status} ${res.body.toString('utf8').slice(0, 200)}`, code: codeOf(res) };
  if (BROWSER_PAGES.has(key) && (res.headers['content-type'] ?? '').startsWith('text/html')) {
    return {
      problem: res.status === 200 || res.status === 302 || (res.status >= 400 && res.status < 500) ? null : `HTML page with HTTP ${res.status}`,
      code: null,
    };
  }
  if (BROWSER_PAGES.has(key) && res.status === 302) return { problem: res.headers.location ? null : '302 without Location', code: null };
  if (STATIC_FILES.has(key) && res.status === 200) {
    const type = res.headers['content-type'] ?? '';
    return { problem: /^text\/(html|javascript|css); charset=utf-8$/.test(type) ? null : `console file served as ${JSON.stringify(type)}`, code: null };
  }
  // The public documentation pages and their files (/docs …): HTML, CSS, script, image.
  if (route.path.startsWith('/docs') && res.status === 200) return { problem: res.headers['content-type'] ? null : 'no Content-Type', code: null };
  if (DOCUMENTS.has(key) && res.status === 200)
    return { problem: res.headers['content-type']?.startsWith('application/json') ? null : 'document not JSON', code: null };
  let body: any;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    return { problem: `HTTP ${res.status} with a body that is not JSON: ${JSON.stringify(res.body.toString('latin1').slice(0, 120))}`, code: null };
  }
  const requestId = body?.meta?.request_id;
  if (typeof requestId !== 'string' || !/^req_[0-9a-z]{20}$/.test(requestId))
    return { problem: `HTTP ${res.status} without meta.request_id`, code: codeOf(res) };
  if (res.headers['x-request-id'] !== requestId) return { problem: 'X-Request-Id differs from meta.request_id', code: codeOf(res) };
  if (res.status >= 200 && res.status < 300) {
    // The token endpoint answers RFC 6749's token object; everything else the success envelope.
    const success = body.code === 200 || (key === 'POST /v3/oauth/token' && typeof body.access_token === 'string');
    return { problem: success ? null : `HTTP ${res.status} without the success envelope`, code: body.code ?? null };
  }
  if (res.status < 400) return { problem: `HTTP ${res.status}`, code: body.code ?? null };
  return { problem: envelopeProblem(body, res.status), code: typeof body.code === 'number' ? body.code : null };
}

function envelopeProblem(body: any, status: number): string | null {
  const { code, message, data, meta } = body;
  if (!Number.isInteger(code) || code < 100_000 || code > 999_999) return `code ${JSON.stringify(code)} is not six digits`;
  if (Math.floor(code / 1000) !== status) return `code ${code} under HTTP ${status}`;
  if (typeof message !== 'string' || !message) return 'no message';
  if (!data || typeof data !== 'object') return 'no data';
  if (!(data.field === null || typeof data.field === 'string')) return 'data.field is neither a string nor null';
  if (typeof data.detail !== 'string') return 'data.detail is not a string';
  if (typeof data.suggestion !== 'string' || !data.suggestion) return 'no data.suggestion';
  if (typeof meta.timestamp !== 'string' || new Date(meta.timestamp).toISOString() !== meta.timestamp) return 'meta.timestamp is not ISO 8601';
  if (typeof meta.documentation_url !== 'string' || !meta.documentation_url.endsWith(`/errors/${code}`)) return 'meta.documentation_url does not name the code';
  return null;
}

function codeOf(res: RawResponse): number | null {
  try {
    const code = JSON.parse(res.body.toString('utf8'))?.code;
    return typeof code === 'number' ? code : null;
  } catch {
    return null;
  }
}
