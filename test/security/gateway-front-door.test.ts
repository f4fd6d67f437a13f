import { httpsRequest, queryTestDatabase, waitUntil } from '@mp/testing';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { closedByPeer, connectTcp, connectTls, readResponse, requestHead, writeAll, type RawResponse } from './raw-http.js';

// ADR 0017: what an anonymous, slow or greedy client can make the gateway hold.
// Bodies are read only after authentication and limits; a process-wide budget caps buffered
// bodies; every stage of a connection has a deadline; connections are capped; refused bodies are
// drained before the close; every answer carries the security headers; TLS offers AEAD only.

const FIVE_MB = 5 * 1024 * 1024;

/** The envelope checks of expectError on a raw response. */
function expectRawError(res: RawResponse, code: number, field: string | null = null): void {
  expectError({ status: res.status, headers: res.headers, body: res.body, text: '', bytes: Buffer.alloc(0) }, code, field);
}

describe('gateway front door, default settings', () => {
  let t: TestPlatform;
  let key: string;
  const projectCount = async () => (await queryTestDatabase<{ n: number }>(t.db.url, 'SELECT count(*)::int AS n FROM projects.projects'))[0]!.n;

  beforeAll(async () => {
    t = await startTestPlatform();
    key = await t.apiKey(['project:read', 'project:write']);
  });
  afterAll(() => t?.stop());

  it('refuses an anonymous request to an authenticated route with 401001 before reading its body, and closes', async () => {
    const socket = await connectTls(t.platform.gateway.port);
    const answer = readResponse(socket);
    // 5 MB announced, 16 bytes sent: the answer comes without the rest.
    await writeAll(socket, requestHead('POST', '/v3/projects', { 'Content-Type': 'application/json', 'Content-Length': FIVE_MB }) + '{"name":"Anonym');
    const res = await answer;
    expectRawError(res, 401001, 'X-API-Key');
    expect(res.headers.connection).toBe('close');
    socket.destroy();
    expect(await projectCount()).toBe(0);
  });

  it('refuses an anonymous sign-in body over 64 KB with 400005, before reading it', async () => {
    const socket = await connectTls(t.platform.gateway.port);
    const answer = readResponse(socket);
    await writeAll(
      socket,
      requestHead('POST', '/v3/auth/login', { 'Content-Type': 'application/json', 'Content-Length': 64 * 1024 + 1 }) + '{"username":"admin",',
    );
    const res = await answer;
    expectRawError(res, 400005);
    expect(res.body.data.detail).toMatch(/65536 bytes \(64 KB\)/);
    socket.destroy();
  });

  it('holds refresh, logout, the token endpoint and the consent form to 64 KB as well', async () => {
    for (const path of ['/v3/auth/refresh', '/v3/auth/logout', '/v3/oauth/token']) {
      const socket = await connectTls(t.platform.gateway.port);
      const answer = readResponse(socket);
      await writeAll(socket, requestHead('POST', path, { 'Content-Type': 'application/json', 'Content-Length': 64 * 1024 + 1 }) + '{"refresh_token":"');
      expectRawError(await answer, 400005);
      socket.destroy();
    }
    // The consent form answers in HTML (never a redirect), with the same refusal.
    const socket = await connectTls(t.platform.gateway.port);
    const answer = readResponse(socket);
    await writeAll(
      socket,
      requestHead('POST', '/v3/oauth/authorize', { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': 64 * 1024 + 1 }) + 'request_id=',
    );
    const page = await answer;
    expect({ status: page.status, type: page.headers['content-type'] }).toEqual({ status: 400, type: 'text/html; charset=utf-8' });
    expect(page.body).toContain('400005');
    socket.destroy();
  });

  it('takes a sign-in body up to 64 KB', async () => {
    const body = JSON.stringify({ username: t.admin.username, password: t.admin.password, grant_type: 'password' });
    const padded = body.slice(0, -1) + ' '.repeat(64 * 1024 - body.length) + '}';
    const res = await t.api('POST', '/auth/login', { rawBody: padded });
    expect(res.status).toBe(200);
    expect(typeof res.body.data.access_token).toBe('string');
  });

  it('answers a body over 5 MB from a client that sends Connection: close with 400005, and the client reads it', async () => {
    // As Python's urllib: the whole request is written before the answer is read.
    const socket = await connectTls(t.platform.gateway.port);
    socket.pause();
    const size = FIVE_MB + 1024 * 1024;
    await writeAll(
      socket,
      requestHead('POST', '/v3/projects', { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': size, Connection: 'close' }),
    );
    await writeAll(socket, Buffer.alloc(size, 0x20));
    const res = await readResponse(socket);
    expectRawError(res, 400005);
    expect(res.headers.connection).toBe('close');
    await closedByPeer(socket);
    expect(await projectCount()).toBe(0);
  });

  it('puts HSTS, nosniff and no-store on a success', async () => {
    const res = await t.api('GET', '/projects', { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('puts them on an error envelope', async () => {
    const res = await t.api('GET', '/projects');
    expectError(res, 401001, 'X-API-Key');
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('keeps HSTS and nosniff on the cacheable JWKS, with its own Cache-Control', async () => {
    const res = await t.api('GET', '/auth/jwks');
    expect(res.status).toBe(200);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
  });

  it('puts them on the OAuth page', async () => {
    const res = await t.api('GET', '/oauth/authorize?client_id=nobody&redirect_uri=https%3A%2F%2Fexample.com%2Fcb&response_type=code&scope=project%3Aread');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('puts them on the plain-HTTP refusal', async () => {
    const socket = await connectTcp(t.platform.gateway.port);
    const answer = readResponse(socket);
    await writeAll(socket, requestHead('GET', '/v3/projects', {}));
    const res = await answer;
    expectRawError(res, 400001, 'scheme');
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    socket.destroy();
  });

  it('refuses a TLS 1.2 client that offers only a CBC/SHA-1 suite', async () => {
    await expect(connectTls(t.platform.gateway.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA' })).rejects.toThrow(
      /handshake failure|no shared cipher|alert/i,
    );
    await expect(connectTls(t.platform.gateway.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-SHA384' })).rejects.toThrow(
      /handshake failure|no shared cipher|alert/i,
    );
  });

  it('serves TLS 1.3 and an ECDHE-GCM or ChaCha20 TLS 1.2 client', async () => {
    const v13 = await connectTls(t.platform.gateway.port, { minVersion: 'TLSv1.3' });
    expect(v13.getProtocol()).toBe('TLSv1.3');
    v13.destroy();
    for (const suite of ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305']) {
      const v12 = await connectTls(t.platform.gateway.port, { maxVersion: 'TLSv1.2', ciphers: suite });
      expect({ protocol: v12.getProtocol(), cipher: v12.getCipher().standardName }).toEqual({
        protocol: 'TLSv1.2',
        cipher: expect.stringMatching(/^TLS_ECDHE_ECDSA_WITH_(AES_128_GCM_SHA256|AES_256_GCM_SHA384|CHACHA20_POLY1305_SHA256)$/),
      });
      v12.destroy();
    }
  });

  it('refuses TLS 1.1', async () => {
    await expect(connectTls(t.platform.gateway.port, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' })).rejects.toThrow();
  });
});

// Short deadlines and small caps through the platform's settings: with the defaults (10 s to the
// first byte and for the handshake, 20 s for headers, 60 s for a body, 65 s idle) these tests
// would wait minutes.
describe('gateway front door, short deadlines and small caps', () => {
  let t: TestPlatform;
  let key: string;
  const MAX_CONNECTIONS = 6;
  const PER_ADDRESS = 3;
  const BUDGET = 1024 * 1024;

  beforeAll(async () => {
    t = await startTestPlatform({
      MP_FIRST_BYTE_TIMEOUT_MS: '1000',
      MP_TLS_HANDSHAKE_TIMEOUT_MS: '1000',
      MP_HEADERS_TIMEOUT_MS: '1000',
      MP_BODY_TIMEOUT_MS: '3000',
      MP_KEEP_ALIVE_TIMEOUT_MS: '1000',
      MP_LINGERING_CLOSE_MS: '1000',
      MP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      MP_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
      MP_BODY_BUFFER_BUDGET_BYTES: String(BUDGET),
      MP_LIMIT_AUTH_PER_MINUTE: '4',
      MP_UPLOAD_IDLE_TIMEOUT_MS: '2000',
    });
    key = await t.apiKey(['project:read', 'project:write', 'data:read', 'data:write']);
  });
  afterAll(() => t?.stop());
  const port = () => t.platform.gateway.port;

  it('closes a connection that sends nothing', async () => {
    const socket = await connectTcp(port());
    await closedByPeer(socket);
  });

  it('closes a TLS handshake that stops half way', async () => {
    const socket = await connectTcp(port());
    // The first bytes of a TLS record header (handshake, TLS 1.0 record version), then nothing.
    await writeAll(socket, Buffer.from([0x16, 0x03, 0x01]));
    await closedByPeer(socket);
  });

  it('closes a TLS connection that sends no request', async () => {
    const socket = await connectTls(port());
    await closedByPeer(socket);
  });

  it('answers headers that do not arrive in time with 400001 and closes', async () => {
    const socket = await connectTls(port());
    const answer = readResponse(socket);
    await writeAll(socket, 'GET /v3/projects HTTP/1.1\r\nHost: localhost\r\nX-Api');
    const res = await answer;
    expectRawError(res, 400001);
    expect(res.body.data.detail).toMatch(/did not arrive in time/);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    await closedByPeer(socket);
  });

  it('answers a body that trickles with 400002 and closes', async () => {
    const socket = await connectTls(port());
    const answer = readResponse(socket);
    await writeAll(socket, requestHead('POST', '/v3/projects', { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': 100 }) + '{"name":');
    const res = await answer;
    expectRawError(res, 400002);
    expect(res.body.data.detail).toMatch(/did not arrive within 3 s/);
    expect(res.headers.connection).toBe('close');
    await closedByPeer(socket);
  });

  /** A project taking data, a piezometer and a CSV profile for it (logger file uploads, docs/imports.md#uploads). */
  const importTarget = async (): Promise<{ projectId: string; uploadPath: string }> => {
    const h = { headers: { 'x-api-key': key } };
    const projectId = (await t.api('POST', '/projects', { ...h, body: { name: 'Uploads', number: `UP-${Date.now()}`, start_date: '2026-01-01' } })).body.data
      .id;
    await t.api('PUT', `/projects/${projectId}/status`, { ...h, body: { status: 'in_progress' } });
    const point = (await t.api('POST', `/projects/${projectId}/points`, { ...h, body: { number: 'PZ-1', name: 'PZ-1', sensor_type: 'piezometer' } })).body.data
      .id;
    const profile = await t.api('POST', `/projects/${projectId}/import-profiles`, {
      ...h,
      body: { name: 'Minute', format: 'csv', timestamp_column: 'time', columns: [{ column: 'kPa', point_id: point, channel: 'pore_pressure' }] },
    });
    return { projectId, uploadPath: `/v3/projects/${projectId}/data/imports?profile_id=${profile.body.data.id}` };
  };
  const csvRows = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => `${new Date(Date.UTC(2026, 1, 1) + (from + i) * 60_000).toISOString()},${100 + ((from + i) % 50)}\n`).join('');

  it('takes a logger file upload that lasts longer than the request time of other routes while its bytes keep coming', async () => {
    const { uploadPath } = await importTarget();
    const socket = await connectTls(port());
    const answer = readResponse(socket, 30_000);
    await writeAll(socket, requestHead('POST', uploadPath, { 'X-API-Key': key, 'Content-Type': 'text/csv', 'Transfer-Encoding': 'chunked' }));
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    await writeAll(socket, chunk('time,kPa\n'));
    // Six pieces a second apart: past the 4 s other requests get (body 3 s + lingering 1 s), each
    // within the upload's 2 s without a byte. The pauses are the slow link this test is about.
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      await writeAll(socket, chunk(csvRows(i * 10, 10)));
    }
    await writeAll(socket, '0\r\n\r\n');
    const res = await answer;
    expect([res.status, res.body.data?.status]).toEqual([200, 'processing']);
    const done = await waitUntil(async () => {
      const imp = await t.api('GET', `/data/imports/${res.body.data.import_id}`, { headers: { 'x-api-key': key } });
      return imp.body.data.status !== 'processing' ? imp.body.data : null;
    });
    expect(done).toMatchObject({ status: 'completed', rows: 60, stored: 60 });
    socket.destroy();
  }, 30_000);

  it('cuts a logger file upload whose client stops sending mid-body with 400002 and closes; the import fails and keeps none of the bytes it had', async () => {
    const { projectId, uploadPath } = await importTarget();
    // More than one 1 MiB piece sent (the gateway hands it on), of a body announced at 4 MiB.
    let sent = 'time,kPa\n';
    for (let i = 0; Buffer.byteLength(sent) < 1.5 * 1024 * 1024; i += 1000) sent += csvRows(i, 1000);
    const socket = await connectTls(port());
    const answer = readResponse(socket);
    await writeAll(socket, requestHead('POST', uploadPath, { 'X-API-Key': key, 'Content-Type': 'text/csv', 'Content-Length': 4 * 1024 * 1024 }));
    await writeAll(socket, sent);
    const res = await answer;
    expectRawError(res, 400002, 'body');
    expect(res.body.data.detail).toMatch(/no byte of the file arrived for 2 s/);
    expect(res.headers.connection).toBe('close');
    await closedByPeer(socket);
    const imports = await queryTestDatabase<{ status: string; bytes: string; failure_detail: string; chunks: number }>(
      t.db.url,
      `SELECT status, bytes, failure_detail, (SELECT count(*)::int FROM monitoring_data.import_chunks c WHERE c.import_id = i.id) AS chunks
         FROM monitoring_data.imports i WHERE project_id = $1`,
      [projectId],
    );
    // It had a piece of 1 MiB or more when it stopped; that piece is gone.
    expect(imports.map((i) => ({ ...i, bytes: Number(i.bytes) >= 1024 * 1024 }))).toEqual([
      { status: 'failed', bytes: true, failure_detail: 'The upload broke off before the end of the file.', chunks: 0 },
    ]);
    // The gateway still serves.
    expect((await t.api('GET', `/projects/${projectId}`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('closes an idle keep-alive connection', async () => {
    const socket = await connectTls(port());
    const answer = readResponse(socket);
    await writeAll(socket, requestHead('GET', '/v3/healthz', {}));
    expect((await answer).status).toBe(200);
    await closedByPeer(socket);
  });

  it('closes the connection of a refused anonymous body after lingering', async () => {
    const socket = await connectTls(port());
    const answer = readResponse(socket);
    await writeAll(socket, requestHead('POST', '/v3/projects', { 'Content-Type': 'application/json', 'Content-Length': FIVE_MB }) + '{"name":');
    expectRawError(await answer, 401001, 'X-API-Key');
    await closedByPeer(socket);
  });

  it('refuses a body that does not fit the buffer budget with 503002 and Retry-After, reading nothing', async () => {
    // Two bodies of 600 KB announced against a 1 MB budget: whichever the gateway reaches second
    // is refused at once, the first one waits for its bytes.
    const size = 600 * 1024;
    const head = requestHead('POST', '/v3/projects', { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': size });
    const [a, b] = [await connectTls(port()), await connectTls(port())];
    const answers = [readResponse(a).then((res) => ({ res, socket: a, other: b })), readResponse(b).then((res) => ({ res, socket: b, other: a }))];
    await Promise.all([writeAll(a, head), writeAll(b, head)]);
    const refused = await Promise.race(answers);
    expectRawError(refused.res, 503002);
    expect(refused.res.headers['retry-after']).toBe('1');
    refused.socket.destroy();

    // While the first holds its reservation, a third is refused too, before a byte of its body.
    const c = await connectTls(port());
    const third = readResponse(c);
    await writeAll(c, head);
    expectRawError(await third, 503002);
    c.destroy();

    // The holder's body arrives: it is stored, and its bytes go back to the budget.
    const json = JSON.stringify({ name: 'Budget holder', number: 'BUDGET-1' });
    const holder = refused.other;
    const held = readResponse(holder);
    await writeAll(holder, json + ' '.repeat(size - json.length));
    expect((await held).status).toBe(200);
    holder.destroy();
    const again = JSON.stringify({ name: 'After the budget', number: 'BUDGET-2' });
    const res = await httpsRequest(`${t.base}/projects`, { method: 'POST', headers: { 'x-api-key': key }, rawBody: again + ' '.repeat(size - again.length) });
    expect(res.status).toBe(200);
  });

  // A connection over a cap is closed before its TLS handshake; an admitted one completes it.
  const refusedHandshake = /disconnected before secure TLS connection|ECONNRESET|socket hang up/;

  it('caps connections per client address', async () => {
    const own = await Promise.all(Array.from({ length: PER_ADDRESS }, () => connectTcp(port(), '127.0.0.5')));
    await expect(connectTls(port(), { localAddress: '127.0.0.5' })).rejects.toThrow(refusedHandshake);
    const other = await connectTls(port(), { localAddress: '127.0.0.6' });
    expect(own.map((s) => s.destroyed)).toEqual(own.map(() => false));
    for (const s of [...own, other]) s.destroy();
    // Once the gateway has seen them go, the address gets in again.
    const admitted = await waitUntil(() => connectTls(port(), { localAddress: '127.0.0.5' }).catch(() => null), {
      message: 'the address was never admitted again',
    });
    const answer = readResponse(admitted);
    await writeAll(admitted, requestHead('GET', '/v3/healthz', { Connection: 'close' }));
    expect((await answer).status).toBe(200);
    admitted.destroy();
  });

  it('caps connections per port', async () => {
    const open = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) open.push(await connectTcp(port(), `127.0.1.${i + 1}`));
    await expect(connectTls(port(), { localAddress: '127.0.1.200' })).rejects.toThrow(refusedHandshake);
    expect(open.map((s) => s.destroyed)).toEqual(open.map(() => false));
    for (const s of open) s.destroy();
    // Once the gateway has seen them go, connections are admitted again.
    const admitted = await waitUntil(() => connectTls(port(), { localAddress: '127.0.1.200' }).catch(() => null), { message: 'never admitted again' });
    admitted.destroy();
  });

  it('counts the per-address sign-in limit (429005) before reading a sign-in body', async () => {
    const login = () => t.api('POST', '/auth/login', { body: { username: 'nobody-here', password: 'wrong', grant_type: 'password' } });
    let res = await login();
    for (let i = 0; i < 10 && res.status !== 429; i++) res = await login();
    expectError(res, 429005);
    const socket = await connectTls(port());
    const answer = readResponse(socket);
    await writeAll(socket, requestHead('POST', '/v3/auth/login', { 'Content-Type': 'application/json', 'Content-Length': 60 * 1024 }) + '{"username":');
    const refused = await answer;
    expectRawError(refused, 429005);
    expect(refused.headers['retry-after']).toBeDefined();
    socket.destroy();
  });
});
