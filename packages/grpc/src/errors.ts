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

/** Domain error → gRPC status whose trailers carry the six-digit code, field, detail and suggestion. */
export function toGrpcError(err: DomainError): Partial<ServiceError> {
  const md = new Metadata();
  md.set(MD.code, err.code);
  if (err.field) md.set(MD.field, err.field);
  md.set(MD.detail, encodeURIComponent(err.detail));
  md.set(MD.suggestion, encodeURIComponent(err.suggestion));
  if (Object.keys(err.headers).length) md.set(MD.headers, JSON.stringify(err.headers));
  return { code: STATUS_BY_HTTP[err.httpStatus] ?? status.UNKNOWN, details: err.detail, metadata: md };
}

/** gRPC failure → domain error; statuses without our trailers become 5xx codes. */
export function fromGrpcError(err: ServiceError): DomainError {
  const md = err.metadata;
  const code = md?.get(MD.code)[0]?.toString();
  if (code && catalogue[code]) {
    const field = md.get(MD.field)[0]?.toString();
    const headers = md.get(MD.headers)[0]?.toString();
    return new DomainError(code, {
      field: field ?? null,
      detail: decodeURIComponent(md.get(MD.detail)[0]?.toString() ?? ''),
      suggestion: decodeURIComponent(md.get(MD.suggestion)[0]?.toString() ?? ''),
      ...(headers ? { headers: JSON.parse(headers) as Record<string, string> } : {}),
    });
  }
  if (err.code === status.UNAVAILABLE) {
    return new DomainError('503002', { detail: 'An internal service is not reachable right now.' });
  }
  if (err.code === status.DEADLINE_EXCEEDED) {
    return new DomainError('503002', { detail: 'An internal service did not answer in time.' });
  }
  return new DomainError('502001', { detail: 'An internal service failed to answer the request.' });
}
