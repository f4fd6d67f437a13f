import { testCertificate } from '@mp/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { RawHttpsClient, type RawRequest } from './raw-https.js';

// Requests that Node's HTTP parser refuses before the application sees them: they must still be
// answered with the error envelope (docs/rules.md#error-envelope), not Node's bare "400 Bad Request" without a body.
const get = (target: string | Buffer, headers: Array<[string, string | Buffer]> = []): RawRequest => ({
  method: 'GET',
  target: Buffer.isBuffer(target) ? target : Buffer.from(target),
  headers: headers.map(([k, v]) => [k, Buffer.isBuffer(v) ? v : Buffer.from(v, 'latin1')]),
});

describe('HTTP the parser refuses', () => {
  let t: TestPlatform;
  let client: RawHttpsClient;

  beforeAll(async () => {
    t = await startTestPlatform();
    client = new RawHttpsClient(t.platform.gateway.port, (await testCertificate()).cert);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it.each([
    ['a NUL in a header value', get('/v3/projects', [['X-API-Key', 'mp_live_\u0000x']]), 400001, 'headers'],
    ['a control character in Idempotency-Key', get('/v3/projects', [['Idempotency-Key', 'a\u0007b']]), 400001, 'headers'],
    ['a raw non-ASCII byte in the path', get(Buffer.from('/v3/projects/prj_\xe9', 'latin1')), 400001, 'path'],
    ['a raw non-ASCII byte in the query', get(Buffer.from('/v3/projects?q=\xff', 'latin1')), 400001, 'path'],
    ['a header over 16 KB', get('/v3/projects', [['If-Match', 'x'.repeat(20_000)]]), 400003, 'headers'],
    ['a query over 16 KB', get(`/v3/projects?q=${'a'.repeat(20_000)}`), 400003, 'headers'],
  ])('answers %s with the error envelope', async (_name, request, code, field) => {
    const res = await client.send(request, 10_000);
    const body = JSON.parse(res.body.toString('utf8'));
    expect({ status: res.status, code: body.code, field: body.data.field }).toEqual({ status: 400, code, field });
    expect(body.message.length).toBeGreaterThan(0);
    expect(body.data.suggestion.length).toBeGreaterThan(0);
    expect(body.meta.request_id).toMatch(/^req_[0-9a-z]{20}$/);
    expect(res.headers['x-request-id']).toBe(body.meta.request_id);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(body.meta.documentation_url).toMatch(new RegExp(`/errors/${code}$`));
  });
});
