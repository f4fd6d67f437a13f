import type { Duplex } from 'node:stream';
import { DomainError } from '@mp/errors';
import { errorBody } from './envelope.js';
import { newRequestId } from './request-id.js';

/** Node's HTTP parser errors and the refusal each one is (data.field names what was wrong). */
function refusalOf(code: string | undefined): DomainError | null {
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
      return code?.startsWith('HPE_')
        ? new DomainError('400001', {
            field: null,
            detail: 'The request is not well-formed HTTP/1.1.',
            suggestion: 'Send the request with an HTTP client library.',
          })
        : null;
  }
}

/**
 * The HTTPS server's `clientError` listener: a request Node's HTTP parser refuses before any
 * application code runs (control characters in a header, raw bytes in the path, a head over
 * 16 KB) is answered with the spec's error envelope instead of Node's bare "400 Bad Request".
 * Other client errors (timeouts, resets) keep Node's default behaviour.
 */
export function answerClientError(docsUrl: () => string) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    const refusal = refusalOf(err.code);
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    if (!refusal) {
      socket.end(
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n'
          : 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n',
      );
      return;
    }
    const requestId = newRequestId();
    const body = JSON.stringify(errorBody(refusal, requestId, docsUrl()));
    socket.end(
      `HTTP/1.1 ${refusal.httpStatus} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
