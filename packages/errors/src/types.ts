/** Categories group the six-digit codes by their HTTP family (docs/rules.md#error-codes). */
export type ErrorCategory =
  'invalid_request' | 'authentication' | 'permission' | 'not_found' | 'conflict' | 'business_rule' | 'rate_limit' | 'internal' | 'gateway' | 'unavailable';

/** One entry of the error catalogue; `GET /errors/{code}` returns it as the error detail record (docs/rules.md#error-codes). */
export interface ErrorEntry {
  /** Six digits; the first three are the HTTP status. */
  code: string;
  /** Short description, used as the envelope's `message`. */
  message: string;
  category: ErrorCategory;
  /** Remedy used in `data.suggestion` when the raising code gives none. */
  suggestion: string;
  commonCauses: string[];
  solutions: string[];
  example: { request: Record<string, unknown>; correct: Record<string, unknown> };
}
