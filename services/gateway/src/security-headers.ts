/**
 * Headers of every response of the API, success or error, the OAuth pages and the answers given
 * outside Koa (plain-HTTP refusal, malformed or timed-out requests) alike: browsers keep to HTTPS
 * for this host for a year (HSTS; no includeSubDomains, the operator's other hosts are not ours
 * to decide), never sniff a JSON answer into something executable, and no cache keeps an answer
 * that may hold tokens or tenant data. A route that may be cached says so itself (the JWKS).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Strict-Transport-Security': 'max-age=31536000',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};
