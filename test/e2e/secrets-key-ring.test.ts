import { newMasterKey, SecretBox } from '@mp/kit';
import { queryTestDatabase, startHttpsReceiver, waitUntil, type HttpsReceiver } from '@mp/testing';
import { verifySignature } from '@mp/webhooks';
import { startSeparatePlatform, type Replica, type SeparatePlatform } from '../faults/support/separate-processes.js';
import { startProcess } from '../support/process.js';

// ADR 0047: the master key rotates as an operator does it on separate processes. The
// services restart with the ring "new,old" (new secrets sealed under the new key, old ones still
// read), `npm run secrets:reseal` rewrites every stored secret under the new key while they run,
// and then the old key leaves the ring: nothing sealed before is lost.
describe('rotating the master key with the key ring and the re-seal command', () => {
  const oldKey = newMasterKey();
  const newKey = newMasterKey();
  const newId = new SecretBox(newKey).currentKeyId;
  let p: SeparatePlatform;
  let receiver: HttpsReceiver;
  let key: string;
  let gw: Replica;
  const h = (extra: Record<string, string> = {}) => ({ 'x-api-key': key, ...extra });
  const sql = <R>(text: string, params: unknown[] = []) => queryTestDatabase<R>(p.db.url, text, params);
  const hookBody = (name: string) => ({
    name,
    url: receiver.url,
    events: ['project.created'],
    retry_policy: { max_retries: 1, retry_interval: 1 },
    active: true,
  });

  /** Every sealed value the platform stores, by where it is. */
  const sealedValues = async () => [
    ...(await sql<{ v: string }>('SELECT private_jwk_sealed AS v FROM identity.signing_keys')).map((r) => ['identity.signing_keys', r.v]),
    ...(await sql<{ v: string }>('SELECT secret_sealed AS v FROM webhooks.webhooks')).map((r) => ['webhooks.webhooks', r.v]),
    ...(await sql<{ v: string }>("SELECT response->>'sealed' AS v FROM webhooks.idempotency_keys WHERE response->>'sealed' IS NOT NULL")).map((r) => [
      'webhooks.idempotency_keys',
      r.v,
    ]),
    ...(await sql<{ v: string }>("SELECT response->>'sealed' AS v FROM identity.idempotency_keys WHERE response->>'sealed' IS NOT NULL")).map((r) => [
      'identity.idempotency_keys',
      r.v,
    ]),
  ];

  /** Restarts identity and webhooks (every replica that holds secrets) with `ring` as MP_SECRETS_KEY. */
  async function rollOut(ring: string): Promise<void> {
    for (const service of ['identity', 'webhooks'] as const) {
      const running = p.of(service).filter((r) => r.proc.child.exitCode === null && r.proc.child.signalCode === null);
      for (const r of running) {
        expect(await r.proc.stop('SIGTERM')).toBe(0);
        await p.restart(r, { MP_SECRETS_KEY: ring });
      }
    }
    // The gateway's channels reconnect (as a client of a restarted pod would, it retries): a read
    // of the webhooks reaches the webhooks service, and GET /me reaches identity (an API key's
    // check alone may be answered by the gateway's credential cache, ADR 0119, so it proves
    // nothing about identity).
    await waitUntil(
      async () => (await p.api(gw, 'GET', '/webhooks', { headers: h() })).status === 200 && (await p.api(gw, 'GET', '/me', { headers: h() })).status === 200,
      { message: 'the gateway did not reach the restarted services' },
    );
  }

  /** `npm run secrets:reseal` as the operator runs it: both scripts, the services' settings. */
  async function reseal(ring: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const service of ['identity', 'webhooks']) {
      const proc = startProcess(process.execPath, [`services/${service}/dist/reseal.js`], { env: { ...p.env, MP_SECRETS_KEY: ring } });
      expect(await new Promise((resolve) => proc.child.once('exit', resolve))).toBe(0);
      for (const line of proc.output().trim().split('\n')) {
        const entry = JSON.parse(line);
        expect(entry.msg).toBe('secrets resealed');
        expect(entry.key_id).toBe(newId);
        counts[`${service}.${entry.table}.${entry.column}`] = entry.resealed;
      }
    }
    return counts;
  }

  /** Sends the webhook's test event and checks it was signed with `secret`. */
  async function signedWith(hookId: string, secret: string): Promise<boolean> {
    const before = receiver.requests.length;
    const res = await p.api(gw, 'POST', `/webhooks/${hookId}/test`, { headers: h() });
    expect(res.body.data.status).toBe('delivered');
    const r = receiver.requests.slice(before).find((x) => x.json?.webhook_id === hookId)!;
    return verifySignature({
      secret,
      signatureHeader: r.headers['x-service-signature'],
      timestampHeader: r.headers['x-service-timestamp'],
      rawBody: r.rawBody,
    });
  }

  beforeAll(async () => {
    p = await startSeparatePlatform({}, { MP_SECRETS_KEY: oldKey });
    gw = p.of('gateway')[0]!;
    receiver = await startHttpsReceiver({ fallback: { status: 200 } });
    const login = await p.api(gw, 'POST', '/auth/login', { body: { ...p.admin, grant_type: 'password' } });
    const created = await p.api(gw, 'POST', '/api-keys', {
      body: { name: 'rotation', permissions: ['system:admin', 'project:read'] },
      headers: { authorization: `Bearer ${login.body.data.access_token}`, 'idempotency-key': 'rotation-key' },
    });
    expect(created.status).toBe(200);
    key = created.body.data.key;
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await p?.stop();
  });

  it('keeps every secret readable through new key, re-seal and old key removed', async () => {
    const before = await p.api(gw, 'POST', '/webhooks', { headers: h({ 'idempotency-key': 'hook-before' }), body: hookBody('before') });
    expect(before.status).toBe(200);
    const oldSecret = before.body.data.secret as string;

    // 1. The new key first in the ring: new secrets are sealed under it, old ones still open.
    await rollOut(`${newKey},${oldKey}`);
    const after = await p.api(gw, 'POST', '/webhooks', { headers: h({ 'idempotency-key': 'hook-after' }), body: hookBody('after') });
    expect(after.status).toBe(200);
    const [{ v: afterSealed }] = await sql<{ v: string }>('SELECT secret_sealed AS v FROM webhooks.webhooks WHERE id = $1', [after.body.data.id]);
    expect(afterSealed!.split('.').slice(0, 2)).toEqual(['v2', newId]);
    expect(await signedWith(before.body.data.id, oldSecret)).toBe(true);
    expect(await signedWith(after.body.data.id, after.body.data.secret)).toBe(true);
    expect((await sealedValues()).filter(([, v]) => !v!.startsWith(`v2.${newId}.`)).length).toBeGreaterThanOrEqual(3);

    // 2. The re-seal, with the services running: every value not yet under the new key rewritten.
    expect(await reseal(`${newKey},${oldKey}`)).toEqual({
      'identity.signing_keys.private_jwk_sealed': 1,
      'identity.idempotency_keys.response': 1,
      'webhooks.webhooks.secret_sealed': 1,
      'webhooks.webhooks.next_secret_sealed': 0,
      'webhooks.idempotency_keys.response': 1,
    });
    expect((await sealedValues()).filter(([, v]) => !v!.startsWith(`v2.${newId}.`))).toEqual([]);
    // Run again, it finds nothing to do.
    expect(Object.values(await reseal(`${newKey},${oldKey}`))).toEqual([0, 0, 0, 0, 0]);

    // 3. The old key leaves the ring: sign-in (the signing key), both webhooks' signatures and the
    // replay of the first creation (its response holds the secret) all still work.
    await rollOut(newKey);
    const relogin = await p.api(gw, 'POST', '/auth/login', { body: { ...p.admin, grant_type: 'password' } });
    expect(relogin.status).toBe(200);
    expect(await signedWith(before.body.data.id, oldSecret)).toBe(true);
    expect(await signedWith(after.body.data.id, after.body.data.secret)).toBe(true);
    const replay = await p.api(gw, 'POST', '/webhooks', { headers: h({ 'idempotency-key': 'hook-before' }), body: hookBody('before') });
    expect({ status: replay.status, id: replay.body.data.id, secret: replay.body.data.secret }).toEqual({
      status: 200,
      id: before.body.data.id,
      secret: oldSecret,
    });
  }, 150_000);
});
