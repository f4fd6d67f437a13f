import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { DomainError, catalogue } from '@mp/errors';

const STATUS_BY_HTTP: Record<number, status> = {
  400: status.INVALID_ARGUMENT,
  401: status.UNAUTHENTICATED,
  403: status.PERMISSION_DENIED,
  404: status.NOT_FOUND,
  409: status.ABORTED,
  422: status.FAILED_PRECONDITION,
  429: status.RESOURCE_EXHAUSTED,
  500: status.INTERNAL,
  502: status.UNAVAILABLE,
  503: status.UNAVAILABLE,
};

const MD = { code: 'mp-error-code', field: 'mp-error-field', detail: 'mp-error-detail', suggestion: 'mp-error-suggestion', headers: 'mp-error-headers' };

/**
 * Trailers travel as HTTP/2 headers. Past the peer's header-list limit a call never completes and
 * the whole connection fails (every call of every tenant on it), so each trailer is capped well
 * below it (all of them together stay under 4 KB), whatever a use case put in its error.
 */
const TRAILER_LIMITS = { field: 200, detail: 2000, suggestion: 1000, headers: 500 } as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` URI-encoded, shortened (with an ellipsis) until the encoding fits in `maxBytes`. */
export function encodeCapped(input: string, maxBytes: number): string {
  // A lone surrogate (JSON allows "\ud800") cannot be URI-encoded: it becomes U+FFFD.
  const text = input.replace(LONE_SURROGATE, '\uFFFD');
  let encoded = encodeURIComponent(text);
  if (encoded.length <= maxBytes) return encoded;
  let chars = Math.min(text.length, maxBytes);
  do {
    chars = Math.floor(chars * 0.8);
    encoded = encodeURIComponent(Array.from(text.slice(0, chars)).slice(0, -1).join('') + '…');
  } while (encoded.length > maxBytes && chars > 0);
  return encoded;
}

/** Domain error → gRPC status whose trailers carry the six-digit code, field, detail and suggestion. */
export function toGrpcError(err: DomainError): Partial<ServiceError> {
  const md = new Metadata();
  md.set(MD.code, err.code);
  if (err.field) md.set(MD.field, encodeCapped(err.field, TRAILER_LIMITS.field));
  const detail = encodeCapped(err.detail, TRAILER_LIMITS.detail);
  md.set(MD.detail, detail);
  md.set(MD.suggestion, encodeCapped(err.suggestion, TRAILER_LIMITS.suggestion));
  const headers = JSON.stringify(err.headers);
  if (Object.keys(err.headers).length && headers.length <= TRAILER_LIMITS.headers) md.set(MD.headers, headers);
  // grpc-status-message repeats the detail: send it short too.
  return { code: STATUS_BY_HTTP[err.httpStatus] ?? status.UNKNOWN, details: decodeURIComponent(detail).slice(0, 200), metadata: md };
}

/** gRPC failure → domain error; statuses without our trailers become 5xx codes. */
export function fromGrpcError(err: ServiceError): DomainError {
  const md = err.metadata;
  const code = md?.get(MD.code)[0]?.toString();
  if (code && catalogue[code]) {
    const field = md.get(MD.field)[0]?.toString();
    const decode = (v: string) => {
      try {
        return decodeURIComponent(v);
      } catch {
        return v;
      }
    };
    const headers = md.get(MD.headers)[0]?.toString();
    return new DomainError(code, {
      field: field ? decode(field) : null,
      detail: decode(md.get(MD.detail)[0]?.toString() ?? ''),
      suggestion: decode(md.get(MD.suggestion)[0]?.toString() ?? ''),
      ...(headers ? { headers: JSON.parse(headers) as Record<string, string> } : {}),
    });
  }
  if (err.code === status.UNAVAILABLE) {
    return new DomainError('503002', { detail: 'An internal service is not reachable right now.' });
  }
  if (err.code === status.UNAUTHENTICATED) {
    // A service refused this process's caller context: keys or clocks of the deployment disagree.
    return new DomainError('502001', { detail: 'An internal service refused the caller credentials of this request.' });
  }
  if (err.code === status.DEADLINE_EXCEEDED) {
    return new DomainError('503002', { detail: 'An internal service did not answer in time.' });
  }
  return new DomainError('502001', { detail: 'An internal service failed to answer the request.' });
}
