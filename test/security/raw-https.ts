import tls from 'node:tls';

/** An HTTP/1.1 request as bytes on the wire: nothing is validated or encoded on the way. */
export interface RawRequest {
  method: string;
  /** Path and query exactly as sent (may hold any byte). */
  target: Buffer;
  headers: Array<[string, Buffer]>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The request as the bytes written to the socket (Connection: close, Content-Length when a body is sent). */
export function encodeRequest(req: RawRequest, host: string): Buffer {
  const lines: Buffer[] = [Buffer.from(`${req.method} `), req.target, Buffer.from(` HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n`)];
  for (const [name, value] of req.headers) lines.push(Buffer.from(`${name}: `), value, Buffer.from('\r\n'));
  if (req.body) lines.push(Buffer.from(`Content-Length: ${req.body.length}\r\n`));
  lines.push(Buffer.from('\r\n'));
  if (req.body) lines.push(req.body);
  return Buffer.concat(lines);
}

/**
 * A client that sends bytes Node's own HTTP client refuses to send (raw bytes in the path and
 * header values, invalid UTF-8), one request per TLS connection; TLS sessions are resumed, so
 * a connection costs no new key exchange. Rejects when no complete answer came within timeoutMs.
 */
export class RawHttpsClient {
  private session: Buffer | undefined;

  constructor(
    private readonly port: number,
    private readonly ca: string,
    private readonly host = '127.0.0.1',
  ) {}

  send(req: RawRequest, timeoutMs: number): Promise<RawResponse> {
    const wire = encodeRequest(req, `${this.host}:${this.port}`);
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: this.host, port: this.port, ca: this.ca, ...(this.session ? { session: this.session } : {}) });
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.on('session', (s: Buffer) => (this.session = s));
      // Not end(): the gateway's listener does not allow half-open sockets, so a FIN from the client
      // would close the connection before the answer is written. Connection: close ends it instead.
      socket.on('secureConnect', () => socket.write(wire));
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.on('close', () => {
        clearTimeout(timer);
        try {
          resolve(parseResponse(Buffer.concat(chunks)));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
  }
}

/** Parses a whole HTTP/1.1 response read up to the close of the connection (chunked or not). */
export function parseResponse(raw: Buffer): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`incomplete response (${raw.length} bytes): ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]);
  if (!status) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('truncated chunked body');
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
