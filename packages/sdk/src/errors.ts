import type { ErrorCode } from './generated.js';

/** The error envelope (docs/rules.md#error-envelope). */
export interface ErrorEnvelope {
  code: number;
  message: string;
  data: { field: string | null; detail: string; suggestion: string };
  meta: { request_id: string; timestamp: string; documentation_url: string };
}

/**
 * A refusal of the API: the six-digit code, the offending field, the explanation, the remedy and
 * the request id to quote to support. `status` is the HTTP status (the code's first three digits).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | null;
  readonly detail: string;
  readonly suggestion: string;
  readonly requestId: string;
  readonly documentationUrl: string;
  /** Seconds the API asked to wait (Retry-After), on 429 and some 503 answers. */
  readonly retryAfter: number | null;
  /** The envelope as received (its `message` is the short title a user interface shows). */
  readonly envelope: ErrorEnvelope;

  constructor(status: number, envelope: ErrorEnvelope, retryAfter: number | null) {
    super(`${envelope.code} ${envelope.message}: ${envelope.data.detail}`);
    this.name = 'ApiError';
    this.code = envelope.code as ErrorCode;
    this.status = status;
    this.field = envelope.data.field;
    this.detail = envelope.data.detail;
    this.suggestion = envelope.data.suggestion;
    this.requestId = envelope.meta.request_id;
    this.documentationUrl = envelope.meta.documentation_url;
    this.retryAfter = retryAfter;
    this.envelope = envelope;
  }
}

/** An answer that is not the API's JSON (a proxy's HTML page, a cut connection's half body). */
export class TransportError extends Error {
  readonly status: number | null;

  constructor(message: string, status: number | null, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
    this.status = status;
  }
}

/** A webhook delivery whose signature or timestamp does not hold (docs/rules.md#signatures). */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}
