/** How many characters of a caller's value an error detail quotes at most. */
export const EXCERPT_LENGTH = 40;

/**
 * A caller's value as an error detail may quote it: in double quotes, control and other
 * unprintable characters escaped as in JSON, and cut to `max` characters with "…" and the full
 * length when longer. Details travel back in gRPC trailers and logs, so a detail must never grow
 * with the input (docs/adr/0018: a 1 MB value echoed in a trailer stalled a whole service).
 */
export function excerpt(value: unknown, max = EXCERPT_LENGTH): string {
  const text = typeof value === 'string' ? value : String(value);
  const chars = Array.from(text.length > max * 2 + 2 ? text.slice(0, max * 2 + 2) : text);
  if (chars.length <= max) return JSON.stringify(text);
  return `${JSON.stringify(chars.slice(0, max).join('') + '…')} (${text.length} characters)`;
}
