import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { generatePlatformKeys } from '@mp/grpc';
import { createLogger, createSelfSignedCertificate, machineNames } from '@mp/kit';
import { parseGatewayConfig } from '../src/config.js';
import { startGateway, type RunningGateway } from '../src/gateway.js';

// The self-signed certificate named only localhost although the gateway listens on
// every address, and a renewed certificate needed a restart to be served.

/** The certificate a new connection to host:port is served, and whether `ca` vouches for it under `servername`. */
function served(host: string, port: number, ca: string, servername?: string): Promise<{ fingerprint: string; authorized: boolean; error: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, ca, ...(servername ? { servername } : {}), rejectUnauthorized: false }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      const error = socket.authorizationError ? String(socket.authorizationError) : null;
      resolve({ fingerprint, authorized: socket.authorized, error });
      socket.end();
    });
    socket.once('error', reject);
  });
}

const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint256;
const nowhere = {
  MP_IDENTITY_ADDR: '127.0.0.1:1',
  MP_PROJECTS_ADDR: '127.0.0.1:1',
  MP_WEBHOOKS_ADDR: '127.0.0.1:1',
  MP_MONITORING_DATA_ADDR: '127.0.0.1:1',
  MP_REPORTS_ADDR: '127.0.0.1:1',
};

describe("the gateway's serving certificate", () => {
  let dir: string;
  let gateway: RunningGateway | undefined;
  const start = async (env: Record<string, string>) => {
    const auth = (await generatePlatformKeys({ mtls: false })).authFor('gateway');
    gateway = await startGateway(
      parseGatewayConfig({ MP_HTTPS_PORT: '0', MP_SANDBOX_HTTPS_PORT: '0', MP_DATA_DIR: dir, ...nowhere, ...env }),
      createLogger('test', 'silent'),
      {
        auth,
      },
    );
    return gateway;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mp-gateway-cert-'));
  });
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes the self-signed certificate for the host name and every address the gateway listens on', async () => {
    const gw = await start({ MP_BIND_HOST: '0.0.0.0', MP_PUBLIC_BASE_URL: 'https://monitoring.example.net/v3' });
    const names = new X509Certificate(gw.certificate).subjectAltName!.split(', ');
    expect(names).toEqual(expect.arrayContaining(['DNS:localhost', 'IP Address:127.0.0.1', 'DNS:monitoring.example.net']));
    const machine = machineNames();
    expect(machine).toContain(hostname().toLowerCase());
    expect(names).toContain(`DNS:${hostname().toLowerCase()}`);
    const ipv4 = machine.filter((n) => /^\d+\.\d+\.\d+\.\d+$/.test(n));
    for (const n of ipv4) expect(names).toContain(`IP Address:${n}`);
    // A client on another machine, reaching it by one of its addresses or its host name, trusts it
    // with the certificate alone (the name check passes), as it does for localhost.
    const address = ipv4[0];
    expect(address).toBeDefined();
    const byAddress = await served(address!, gw.port, gw.certificate);
    expect(byAddress).toMatchObject({ authorized: true, error: null });
    const byName = await served(address!, gw.port, gw.certificate, hostname().toLowerCase());
    expect(byName).toMatchObject({ authorized: true, error: null });
    // … and a name it was not made for still fails the check.
    expect(await served(address!, gw.port, gw.certificate, 'elsewhere.example')).toMatchObject({ authorized: false, error: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('serves renewed certificate files to new connections on a reload, and keeps the pair in use when the new one is unusable', async () => {
    const first = await createSelfSignedCertificate();
    const renewed = await createSelfSignedCertificate();
    const certFile = join(dir, 'server.crt');
    const keyFile = join(dir, 'server.key');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const gw = await start({ MP_BIND_HOST: '127.0.0.1', MP_TLS_CERT_FILE: certFile, MP_TLS_KEY_FILE: keyFile, MP_TLS_RELOAD_INTERVAL_MS: '0' });
    expect((await served('127.0.0.1', gw.port, first.cert)).fingerprint).toBe(fingerprintOf(first.cert));
    expect(await gw.reloadCertificate()).toMatchObject({ reloaded: false });

    // Half a renewal: the new certificate with the old key does not make a pair.
    writeFileSync(certFile, renewed.cert);
    await expect(gw.reloadCertificate()).rejects.toThrow(/key values mismatch/);
    expect((await served('127.0.0.1', gw.port, first.cert)).fingerprint).toBe(fingerprintOf(first.cert));
    expect(gw.certificate).toBe(first.cert);

    writeFileSync(keyFile, renewed.key);
    const result = await gw.reloadCertificate();
    expect(result).toEqual({ reloaded: true, validUntil: new Date(new X509Certificate(renewed.cert).validTo).toISOString() });
    for (const port of [gw.port, gw.sandboxPort]) {
      const now = await served('127.0.0.1', port, renewed.cert);
      expect(now).toMatchObject({ fingerprint: fingerprintOf(renewed.cert), authorized: true });
    }
    expect(gw.certificate).toBe(renewed.cert);
  });

  it('looks at the certificate files on its own and serves a renewed pair', async () => {
    const first = await createSelfSignedCertificate();
    const renewed = await createSelfSignedCertificate();
    const certFile = join(dir, 'server.crt');
    const keyFile = join(dir, 'server.key');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const gw = await start({ MP_BIND_HOST: '127.0.0.1', MP_TLS_CERT_FILE: certFile, MP_TLS_KEY_FILE: keyFile, MP_TLS_RELOAD_INTERVAL_MS: '100' });
    writeFileSync(keyFile, renewed.key);
    writeFileSync(certFile, renewed.cert);
    // Each new connection shows the certificate then served; the renewed one comes without a call.
    let seen = (await served('127.0.0.1', gw.port, first.cert)).fingerprint;
    for (let i = 0; i < 200 && seen !== fingerprintOf(renewed.cert); i++) {
      await new Promise((r) => setTimeout(r, 50));
      seen = (await served('127.0.0.1', gw.port, first.cert)).fingerprint;
    }
    expect(seen).toBe(fingerprintOf(renewed.cert));
    expect(gw.certificate).toBe(renewed.cert);
  });
});
