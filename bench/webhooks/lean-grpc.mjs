// A lean gRPC unary caller for the load generator: one HTTP/2 session, requests framed by hand
// (5-byte gRPC prefix + protobuf), caller metadata rendered once. grpc-js's client spends most of
// a millisecond per call (much of it in Node's HTTP/2 internals through its call stack), which on
// a 2-core machine is CPU taken from the platform under test. Each call carries a caller context
// made with `auth` (the gateway's keyring), as the gateway's client sends it.
import http2 from 'node:http2';
import { CALLER_METADATA_KEY, signCallerContext } from '@mp/grpc';

export function leanUnary(address, method, ctx, auth, audience) {
  const session = http2.connect(`http://${address}`);
  session.on('error', () => undefined);
  const fixed = { ':method': 'POST', ':path': method.path, 'content-type': 'application/grpc', te: 'trailers' };
  const call = (request) =>
    new Promise((resolve, reject) => {
      const body = method.requestSerialize(request);
      const frame = Buffer.allocUnsafe(5 + body.length);
      frame[0] = 0;
      frame.writeUInt32BE(body.length, 1);
      body.copy(frame, 5);
      const stream = session.request({ ...fixed, [CALLER_METADATA_KEY]: signCallerContext(auth.keyring, audience, method.path, ctx) });
      const chunks = [];
      let status = null;
      let message = '';
      stream.on('response', (h) => {
        // A failure without a body comes as a trailers-only response.
        if (h['grpc-status'] !== undefined) [status, message] = [h['grpc-status'], h['grpc-message'] ?? ''];
      });
      stream.on('trailers', (t) => ([status, message] = [t['grpc-status'], t['grpc-message'] ?? '']));
      stream.on('data', (c) => chunks.push(c));
      stream.on('error', reject);
      stream.on('end', () => {
        if (status !== '0') return reject(new Error(`gRPC status ${status}: ${decodeURIComponent(message)}`));
        const all = Buffer.concat(chunks);
        resolve(method.responseDeserialize(all.subarray(5, 5 + all.readUInt32BE(1))));
      });
      stream.end(frame);
    });
  return { call, close: () => session.close() };
}
