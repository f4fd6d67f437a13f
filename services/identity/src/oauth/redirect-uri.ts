import { DomainError } from '@mp/errors';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A redirect URI a client may register: absolute, HTTPS (plain HTTP only to the loopback
 * interface, for native and development clients, RFC 8252 §7.3), without a fragment or user
 * info. At authorization time it must match a registered one exactly, character for character
 * (RFC 9700 §4.1.1): no prefix or pattern matching.
 */
export function checkRedirectUri(raw: string, field: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError('400004', { field, detail: `${field} is not an absolute URL.`, suggestion: 'Send e.g. https://app.example.com/oauth/callback.' });
  }
  const problem =
    raw.length > 2000
      ? 'is longer than 2000 characters'
      : url.hash !== '' || raw.includes('#')
        ? 'must not contain a fragment (#…)'
        : url.username || url.password
          ? 'must not contain user info'
          : url.protocol === 'https:'
            ? null
            : url.protocol === 'http:' && LOOPBACK.has(url.hostname)
              ? null
              : 'must use https (plain http only to 127.0.0.1, [::1] or localhost)';
  if (problem)
    throw new DomainError('422103', { field, detail: `${field} ${problem}.`, suggestion: 'Register the exact HTTPS callback URL of your application.' });
  return raw;
}

/** The redirect to the client: its URI (query kept) with `params` added. */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) url.searchParams.append(k, v);
  return url.toString();
}
