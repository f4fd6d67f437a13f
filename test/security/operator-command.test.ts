import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identity } from '@mp/contracts';
import { anonymousContext, createClient, generatePlatformKeys, keyFileSettings, loadServiceAuth, writeOperatorCredential } from '@mp/grpc';
import { runOperatorCommand, UsageError } from '@mp/operator';
import { newId, newMasterKey } from '@mp/kit';
import { createTestDatabase, createTestStream, queryTestDatabase, type TestDatabase } from '@mp/testing';
import { startProcess, type StartedProcess } from '../support/process.js';

// ADR 0016: operator calls need an operator credential, and the project ships the command for
// them. A deployment makes its keys with `keygen`; an identity pod started from those files (with
// mutual TLS) serves the command; a pod without its key does not start at all.
describe('the operator command against a standalone identity process', () => {
  let dir: string;
  let db: TestDatabase;
  let proc: StartedProcess | null = null;
  let identityAddress = '';
  const stream = createTestStream();
  const baseEnv = () => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MP_DATABASE_URL: db.url,
    MP_NATS_URL: stream.url,
    MP_NATS_STREAM: stream.stream,
    MP_NATS_SUBJECT_PREFIX: stream.subjectPrefix,
    MP_SECRETS_KEY: newMasterKey(),
    MP_DATA_DIR: dir,
    MP_IDENTITY_GRPC_PORT: '0',
    MP_OPS_PORT: '0',
    MP_LOG_LEVEL: 'info',
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mp-operator-'));
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    await db?.drop();
    await stream.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keygen writes every party’s key (owner-only), the public keys and an mTLS set', async () => {
    const out = await runOperatorCommand(['keygen', '--out', join(dir, 'keys'), '--mtls'], {});
    expect(out).toContain('Keep operator.key with the operators');
    for (const party of ['gateway', 'identity', 'projects', 'monitoring-data', 'reports', 'webhooks', 'operator']) {
      expect(statSync(join(dir, 'keys', `${party}.key`)).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'keys', 'tls', `${party}.key`)).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'keys', 'peers', `${party}.pub`)).isFile()).toBe(true);
      expect(statSync(join(dir, 'keys', 'tls', `${party}.crt`)).isFile()).toBe(true);
    }
  });

  it('a service without its key refuses to start, in one line naming the settings', async () => {
    const p = startProcess(process.execPath, ['services/identity/dist/main.js'], { env: baseEnv() });
    const code = await new Promise<number | null>((resolve) => p.child.once('exit', resolve));
    expect(code).toBe(1);
    // one JSON log line (ADR 0038: every line of a process is JSON)
    const lines = p.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 60,
      service: 'identity',
      setting: 'MP_SERVICE_KEY_FILE, MP_SERVICE_PEER_KEYS_DIR',
      msg: 'cannot start: MP_SERVICE_KEY_FILE and MP_SERVICE_PEER_KEYS_DIR must be set: the identity process authenticates every gRPC call with its service key (make the keys with `npm run operator -- keygen --out DIR`).',
    });
    // It opened nothing: no schema was made in the database.
    expect(await queryTestDatabase(db.url, "SELECT 1 FROM information_schema.schemata WHERE schema_name = 'identity'")).toEqual([]);
  });

  it('creates a tenant through identity with the operator’s files; the gateway’s key cannot', async () => {
    const keys = join(dir, 'keys');
    proc = startProcess(process.execPath, ['services/identity/dist/main.js'], { env: { ...baseEnv(), ...keyFileSettings(keys, 'identity') } });
    const [, port] = await proc.waitForOutput(/"port":(\d+),[^\n]*identity service listening/, 60_000);
    identityAddress = `127.0.0.1:${port}`;
    const operatorEnv = { ...keyFileSettings(keys, 'operator'), MP_IDENTITY_ADDR: identityAddress };
    const created = JSON.parse(await runOperatorCommand(['create-tenant', '--name', 'Tunnel Co', '--admin-username', 'tunnel-admin'], operatorEnv));
    expect(created.tenant.name).toBe('Tunnel Co');
    expect(created.tenant.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(created.admin.username).toBe('tunnel-admin');
    expect(created.admin_password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await queryTestDatabase(db.url, 'SELECT name FROM identity.tenants WHERE id = $1', [created.tenant.id])).toEqual([{ name: 'Tunnel Co' }]);

    // The gateway's key, used as if it were the operator's: refused by identity.
    const asGateway = { ...keyFileSettings(keys, 'gateway'), MP_IDENTITY_ADDR: `127.0.0.1:${port}` };
    await expect(runOperatorCommand(['create-tenant', '--name', 'Evil', '--admin-username', 'evil'], asGateway)).rejects.toThrow();
    expect(await queryTestDatabase(db.url, "SELECT name FROM identity.tenants WHERE name = 'Evil'")).toEqual([]);
  });

  // A lost administrator password, on a deployment: the operator key resets it through identity.
  it('reset-password: the new password signs in; the old one, its sessions and its sign-in lock are gone', async () => {
    const keys = join(dir, 'keys');
    const operatorEnv = { ...keyFileSettings(keys, 'operator'), MP_IDENTITY_ADDR: identityAddress };
    // Identity as the gateway calls it: sign-ins and refreshes with the client's address.
    const gateway = createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, identityAddress, {
      auth: loadServiceAuth('gateway', keyFileSettings(keys, 'gateway')),
      audience: 'identity',
    });
    const signIn = (password: string, clientAddress = '198.51.100.20') =>
      gateway.login({ username: 'tunnel-admin', password, environment: 'live', clientAddress }, anonymousContext(newId('request'), 'live'));
    try {
      const first = JSON.parse(await runOperatorCommand(['reset-password', '--username', 'tunnel-admin', '--password', 'first known password'], operatorEnv));
      expect(first).toMatchObject({ user: { username: 'tunnel-admin' }, sessions_ended: 0 });
      expect(first).not.toHaveProperty('password');
      const session = await signIn('first known password');
      // Five wrong passwords from one address lock the username there.
      for (let i = 1; i <= 5; i++) await expect(signIn(`wrong ${i}`, '198.51.100.21')).rejects.toMatchObject({ code: i < 5 ? '401008' : '401007' });
      await expect(signIn('first known password', '198.51.100.21')).rejects.toMatchObject({ code: '401007' });

      const reset = JSON.parse(await runOperatorCommand(['reset-password', '--username', 'tunnel-admin', '--tenant', first.user.tenant_id], operatorEnv));
      expect(reset.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(reset).toMatchObject({ user: { username: 'tunnel-admin', version: first.user.version + 1 }, sessions_ended: 1 });
      expect(reset.user).not.toHaveProperty('locked_until');

      await expect(
        gateway.refresh({ refreshToken: session.refreshToken, environment: 'live' }, anonymousContext(newId('request'), 'live')),
      ).rejects.toMatchObject({
        code: '401003',
      });
      await expect(signIn('first known password', '198.51.100.22')).rejects.toMatchObject({ code: '401008' });
      // The lock is lifted: the locked address signs in with the new password at once.
      expect((await signIn(reset.password, '198.51.100.21')).accessToken).toBeTruthy();
      expect(
        await queryTestDatabase(db.url, 'SELECT revoke_reason FROM identity.sessions WHERE user_id = $1 AND revoked_at IS NOT NULL', [first.user.id]),
      ).toEqual([{ revoke_reason: 'password_reset' }]);

      // A wrong tenant, an unknown user, a short password: refused, nothing changed.
      await expect(
        runOperatorCommand(['reset-password', '--username', 'tunnel-admin', '--tenant', 'ten_00000000000000000000', '--password', 'not this one'], operatorEnv),
      ).rejects.toMatchObject({ code: '422104' });
      await expect(runOperatorCommand(['reset-password', '--username', 'nobody-here'], operatorEnv)).rejects.toMatchObject({ code: '404007' });
      await expect(runOperatorCommand(['reset-password', '--username', 'tunnel-admin', '--password', 'short'], operatorEnv)).rejects.toMatchObject({
        code: '400003',
      });
      await expect(runOperatorCommand(['reset-password'], operatorEnv)).rejects.toBeInstanceOf(UsageError);
      expect((await signIn(reset.password, '198.51.100.23')).accessToken).toBeTruthy();

      // The gateway's key cannot reset a password.
      await expect(
        gateway.resetPassword({ username: 'tunnel-admin', password: 'taken over by the gateway' }, anonymousContext(newId('request'), 'live')),
      ).rejects.toThrow();
      await expect(signIn('taken over by the gateway')).rejects.toMatchObject({ code: '401008' });
    } finally {
      gateway.close();
    }
  });

  it('refuses unknown commands and missing options with the usage', async () => {
    await expect(runOperatorCommand(['create-tenant', '--name', 'x'], { MP_SERVICE_KEY_FILE: 'x' })).rejects.toBeInstanceOf(Error);
    await expect(runOperatorCommand(['keygen'], {})).rejects.toBeInstanceOf(UsageError);
    expect(await runOperatorCommand([], {})).toContain('Commands:');
  });
});

// A credential npm start left in its data folder names the identity port of that run; once the
// platform stopped (or runs on another folder), the command says which setting to look at.
describe('the operator command with a stale credential of MP_DATA_DIR', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mp-operator-stale-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names MP_DATA_DIR and the folder when identity does not answer', async () => {
    // a port nothing listens on: the platform that wrote the file is gone
    writeOperatorCredential(dir, await generatePlatformKeys({ mtls: true }), '127.0.0.1:1');
    const err = await runOperatorCommand(['get-tenant', '--id', 'ten_00000000000000000000'], { MP_DATA_DIR: dir }).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      `503002 identity at 127.0.0.1:1 did not answer. The operator credential ${join(dir, 'operator.json')} is written by the platform running on that data folder (MP_DATA_DIR): start the platform (npm start) with MP_DATA_DIR=${dir}, or set MP_DATA_DIR to the folder of the platform that runs.`,
    );
  });
});

// The certificates of keygen --mtls run out (825 days); their renewal is documented.
// renew-grpc-tls makes successors and a CA bundle with which old and new certificates meet.
describe('renewing the gRPC certificates', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mp-operator-renew-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Whether a mutual TLS handshake succeeds between a server and a client with these files (both sides verify). */
  const handshake = async (server: { cert: string; key: string; ca: string }, client: { cert: string; key: string; ca: string }, party: string) => {
    let serverAccepted = false;
    const srv = createTlsServer({ ...server, requestCert: true, rejectUnauthorized: true }, (s) => {
      serverAccepted = s.authorized;
      s.end();
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      return await new Promise<boolean>((resolve) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: (srv.address() as AddressInfo).port, servername: party, ...client }, () => socket.resume());
        socket.once('error', () => resolve(false));
        socket.once('close', () => resolve(serverAccepted && socket.authorized));
      });
    } finally {
      srv.close();
    }
  };
  const read = (...p: string[]) => readFileSync(join(dir, ...p), 'utf8');

  it('makes a new CA and certificates beside the ones in use, and a bundle that lets both meet during the roll', async () => {
    await runOperatorCommand(['keygen', '--out', dir, '--mtls'], {});
    const serviceKey = read('identity.key');
    const out = await runOperatorCommand(['renew-grpc-tls', '--keys', dir], {});
    expect(out).toContain(`to ${join(dir, 'tls-next')}`);
    expect(read('identity.key')).toBe(serviceKey);
    expect(statSync(join(dir, 'tls-next', 'identity.key')).mode & 0o777).toBe(0o600);
    const old = {
      ca: read('tls', 'ca.crt'),
      id: { cert: read('tls', 'identity.crt'), key: read('tls', 'identity.key') },
      gw: { cert: read('tls', 'gateway.crt'), key: read('tls', 'gateway.key') },
    };
    const next = {
      ca: read('tls-next', 'ca.crt'),
      id: { cert: read('tls-next', 'identity.crt'), key: read('tls-next', 'identity.key') },
      gw: { cert: read('tls-next', 'gateway.crt'), key: read('tls-next', 'gateway.key') },
    };
    const bundle = read('tls-next', 'ca-bundle.crt');
    expect(next.ca).not.toBe(old.ca);
    expect(new X509Certificate(next.id.cert).subject).toBe('CN=identity');

    // Without the bundle, a renewed gateway cannot call an identity pod not yet renewed (the roll would refuse calls) …
    expect(await handshake({ ...old.id, ca: old.ca }, { ...next.gw, ca: next.ca }, 'identity')).toBe(false);
    // … with it (step 1 rolled everywhere), old and new certificates meet both ways (step 2 in progress) …
    expect(await handshake({ ...old.id, ca: bundle }, { ...next.gw, ca: bundle }, 'identity')).toBe(true);
    expect(await handshake({ ...next.id, ca: bundle }, { ...old.gw, ca: bundle }, 'identity')).toBe(true);
    // … and after step 3 only the new CA is trusted.
    expect(await handshake({ ...next.id, ca: next.ca }, { ...next.gw, ca: next.ca }, 'identity')).toBe(true);
    expect(await handshake({ ...next.id, ca: next.ca }, { ...old.gw, ca: next.ca }, 'identity')).toBe(false);
  });

  it('refuses a folder without the certificates of keygen --mtls, writing nothing', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'mp-operator-bare-'));
    await expect(runOperatorCommand(['renew-grpc-tls', '--keys', bare], {})).rejects.toThrow(
      /^No .*tls\/ca\.crt: renew-grpc-tls renews the certificates of keygen --mtls/,
    );
    expect(existsSync(join(bare, 'tls-next'))).toBe(false);
    rmSync(bare, { recursive: true, force: true });
  });
});
