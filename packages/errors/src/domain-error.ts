import { catalogue } from './catalogue/index.js';

export interface DomainErrorDetails {
  /** The offending field, e.g. `name` or `records[3].measured_at`. */
  field?: string | null;
  /** Explanation of this particular failure. */
  detail?: string;
  /** Remedy; defaults to the catalogue's suggestion for the code. */
  suggestion?: string;
  /** Extra response headers (e.g. Retry-After on 429). Not part of the envelope. */
  headers?: Record<string, string>;
}

/**
 * The one error type domain code throws. It carries a catalogue code; the gRPC layer and the
 * gateway map it to their transports, so no handler assembles an error body by hand.
 */
export class DomainError extends Error {
  readonly code: string;
  readonly field: string | null;
  readonly detail: string;
  readonly suggestion: string;
  readonly headers: Record<string, string>;

  constructor(code: string, details: DomainErrorDetails = {}) {
    const entry = catalogue[code];
    if (!entry) throw new Error(`DomainError: code ${code} is not in the catalogue`);
    super(details.detail ?? entry.message);
    this.name = 'DomainError';
    this.code = code;
    this.field = details.field ?? null;
    this.detail = details.detail ?? entry.message;
    this.suggestion = details.suggestion ?? entry.suggestion;
    this.headers = details.headers ?? {};
  }

  get httpStatus(): number {
    return httpStatusOf(this.code);
  }

  get entry() {
    return catalogue[this.code]!;
  }
}

export function httpStatusOf(code: string): number {
  return Number(code.slice(0, 3));
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}
