// Cost of the authenticated caller context (ADR 0016) per gRPC call: making the token at the
// caller and verifying it at the service, against an HMAC of the same bytes alone and an Ed25519
// signature (the alternative the ADR weighs). Prints microseconds per call and calls per second.
//   node bench/gateway/caller-context.mjs [--calls 200000]   (BENCH_SMOKE=1: 2,000 unless --calls is given)
import { createHmac, generateKeyPairSync, sign, verify } from 'node:crypto';
import { generatePlatformKeys, signCallerContext, verifyCallerContext } from '@mp/grpc';
import { smokeOr } from '../support/smoke.mjs';

const defaultCalls = smokeOr(200_000, 2_000);
const calls = (process.argv.includes('--calls') && Number(process.argv[process.argv.indexOf('--calls') + 1])) || defaultCalls;
const keys = await generatePlatformKeys({ mtls: false });
const gateway = keys.authFor('gateway').keyring;
const projects = keys.authFor('projects').keyring;
const METHOD = '/mp.projects.Projects/ListProjects';
const ctx = {
  requestId: 'req_0123456789abcdefghij',
  tenantId: 'ten_0123456789abcdefghij',
  environment: 'live',
  principalId: 'key_0123456789abcdefghij',
  principalType: 'api_key',
  permissions: ['project:read', 'project:write', 'task:read', 'task:write', 'data:read', 'data:write'],
};

function time(label, fn) {
  for (let i = 0; i < Math.min(20_000, calls); i++) fn(i); // warm-up
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn(i);
  const us = Number(process.hrtime.bigint() - started) / 1000 / calls;
  console.log(
    `${label.padEnd(44)} ${us.toFixed(2).padStart(7)} µs/call  ${Math.round(1e6 / us)
      .toLocaleString('en-US')
      .padStart(10)} calls/s`,
  );
  return us;
}

const token = signCallerContext(gateway, 'projects', METHOD, ctx);
console.log(`caller context: ${token.length} bytes of metadata; ${calls.toLocaleString('en-US')} calls per figure; node ${process.version}`);
const make = time('make (gateway side)', () => signCallerContext(gateway, 'projects', METHOD, ctx));
const check = time('verify (service side)', () => verifyCallerContext(projects, token, METHOD));
time('make + verify', () => verifyCallerContext(projects, signCallerContext(gateway, 'projects', METHOD, ctx), METHOD));
const body = Buffer.from(token.split('.')[0]);
const key = Buffer.alloc(32, 7);
time('baseline: HMAC-SHA256 of the same bytes', () => createHmac('sha256', key).update(body).digest());
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const sig = sign(null, body, privateKey);
time('alternative: Ed25519 sign + verify', () => verify(null, body, publicKey, sign(null, body, privateKey)) && sig);
console.log(`per API request with 2 gRPC calls: ${(2 * (make + check)).toFixed(1)} µs of CPU`);
