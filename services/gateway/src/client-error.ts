import type { Duplex } from 'node:stream';
import { DomainError } from '@mp/errors';
import { errorBody } from './envelope.js';
import { REQUEST_DEADLINE } from './request-deadline.js';
import { newRequestId } from './request-id.js';
import { SECURITY_HEADERS } from './security-headers.js';

/** Node's HTTP parser errors and the refusal each one is (data.field names what was wrong). */
function parserRefusal(code: string | undefined): DomainError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError('400003', {
        field: 'headers',
        detail: 'The request line and headers together exceed 16 KB.',
        suggestion: 'Send shorter headers and query strings; put large values in the JSON body.',
      });
    case 'HPE_INVALID_URL':
      return new DomainError('400001', {
        field: 'path',
        detail: 'The request target holds characters HTTP does not allow (spaces, control characters or raw non-ASCII bytes).',
        suggestion: 'Percent-encode the path and query, e.g. with encodeURIComponent.',
      });
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
    case 'HPE_UNEXPECTED_SPACE':
      return new DomainError('400001', {
        field: 'headers',
        detail: 'A header name or value holds characters HTTP does not allow (control characters such as NUL).',
        suggestion: 'Send header values as printable text; percent- or base64-encode binary values.',
      });
    default:
      return new DomainError('400001', {
        detail: 'The request is not well-formed HTTP/1.1.',
        suggestion: 'Send the request with an HTTP client library, over TLS.',
      });
  }
}

/** The envelope of a request Node refused before it reached Koa. */
function domainErrorOf(err: Error & { code?: string; ms?: number }, headersTimeoutMs: number): DomainError {
  if (err.code === REQUEST_DEADLINE) {
    return new DomainError('400002', {
      detail: `The request did not arrive within ${(err.ms ?? 0) / 1000} s of its headers; the connection is closed.`,
      suggestion: 'Send the whole body at once, right after the headers.',
    });
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new DomainError('400001', {
      detail: `The request did not arrive in time (its headers are due within ${headersTimeoutMs / 1000} s); the connection is closed.`,
      suggestion: 'Send the whole request headers at once, right after connecting.',
    });
  }
  return parserRefusal(err.code);
}

/** The status, headers and body of an error answered outside Koa (same envelope and headers as inside). */
export function errorResponse(err: DomainError, docsUrl: string): { status: number; headers: Record<string, string | number>; body: string } {
  const requestId = newRequestId();
  const body = JSON.stringify(errorBody(err, requestId, docsUrl));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    Connection: 'close',
    ...SECURITY_HEADERS,
    ...err.headers,
  };
  return { status: err.httpStatus, headers, body };
}

/** The same as whole HTTP/1.1 response bytes, for a socket that has no response object. */
function rawErrorResponse(err: DomainError, docsUrl: string): Buffer {
  const { status, headers, body } = errorResponse(err, docsUrl);
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return Buffer.from(`HTTP/1.1 ${status} ${err.entry.message}\r\n${head}\r\n${body}`);
}

/**
 * Node's `clientError`: a request that cannot reach the application (headers not complete within
 * the headers timeout, control characters in a header, raw bytes in the path, a head over 16 KB)
 * gets the error envelope instead of Node's bare status line, then the connection closes. As
 * Node's own handler, it answers only when no response of the connection has started (a reset
 * connection gets nothing).
 */
export function answerClientError(docsUrl: () => string, headersTimeoutMs: number) {
  return (err: Error & { code?: string }, socket: Duplex): void => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    socket.end(rawErrorResponse(domainErrorOf(err, headersTimeoutMs), docsUrl()));
    // The answer is flushed before the close; a peer that never closes its side is not waited for.
    setTimeout(() => socket.destroy(), 1_000).unref();
  };
}
