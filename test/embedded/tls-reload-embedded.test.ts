import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { createSelfSignedCertificate } from '@mp/kit';
import { startProcess, userEnv, type StartedProcess } from '../support/process.js';

// A renewed serving certificate once needed a restart. The platform as `npm start` runs it
// (scripts/start.mjs, the process to send signals to) reads its certificate files again on SIGHUP.
describe('npm start: SIGHUP reloads the serving certificate', () => {
  let dataDir: string;
  let proc: StartedProcess | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mp-tls-reload-'));
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const servedFingerprint = (port: number) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        resolve(socket.getPeerCertificate().fingerprint256);
        socket.end();
      });
      socket.once('error', reject);
    });
  const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint256;

  it('serves the renewed files to new connections, and keeps the pair in use when the new files do not match', async () => {
    const first = await createSelfSignedCertificate();
    const renewed = await createSelfSignedCertificate();
    const certFile = join(dataDir, 'server.crt');
    const keyFile = join(dataDir, 'server.key');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    proc = startProcess(process.execPath, ['scripts/start.mjs'], {
      env: userEnv(dataDir, { MP_SKIP_BUILD: '1', MP_TLS_CERT_FILE: certFile, MP_TLS_KEY_FILE: keyFile, MP_TLS_RELOAD_INTERVAL_MS: '0' }),
    });
    const [, port] = await proc.waitForOutput(/Live API:\s+https:\/\/localhost:(\d+)\/v3/, 90_000);
    await proc.waitForOutput(/Press Ctrl-C to stop/);
    expect(await servedFingerprint(Number(port))).toBe(fingerprintOf(first.cert));

    // Half a renewal: the certificate is new, the key is not.
    writeFileSync(certFile, renewed.cert);
    process.kill(proc.child.pid!, 'SIGHUP');
    await proc.waitForOutput(/TLS certificate not reloaded, the one in use is kept: .*key values mismatch/);
    expect(await servedFingerprint(Number(port))).toBe(fingerprintOf(first.cert));

    writeFileSync(keyFile, renewed.key);
    process.kill(proc.child.pid!, 'SIGHUP');
    const [, validUntil] = await proc.waitForOutput(/TLS certificate reloaded from \S+ \(valid until (\S+)\)\./);
    expect(validUntil).toBe(new Date(new X509Certificate(renewed.cert).validTo).toISOString());
    expect(await servedFingerprint(Number(port))).toBe(fingerprintOf(renewed.cert));
    // still running, and a Ctrl-C still stops it
    expect([0, null]).toContain(await proc.stop('SIGINT'));
    proc = undefined;
  }, 180_000);
});
