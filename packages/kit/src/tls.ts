import { webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

export interface TlsMaterial {
  cert: string;
  key: string;
}

x509.cryptoProvider.set(webcrypto as never);

/** A subject alternative name entry: an IP address, or a DNS name. */
const altName = (n: string) => (/^[\d.]+$|:/.test(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n });

/**
 * The names this machine is reached by besides localhost: its host name and every address of its
 * interfaces (IPv6 link-local ones left out: they need a zone, which a certificate cannot name).
 */
export function machineNames(): string[] {
  const names = new Set<string>();
  const host = hostname();
  if (host && host !== 'localhost' && /^[A-Za-z0-9.-]+$/.test(host)) names.add(host.toLowerCase());
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal || (a.family === 'IPv6' && /^fe80:/i.test(a.address))) continue;
      names.add(a.address);
    }
  }
  return [...names];
}

/**
 * A self-signed certificate for local runs and tests: ECDSA P-256, valid for localhost,
 * 127.0.0.1, ::1 and `extraNames` (host names or addresses), marked as a CA so clients can trust
 * it directly (NODE_EXTRA_CA_CERTS).
 */
export async function createSelfSignedCertificate(commonName = 'localhost', days = 825, extraNames: string[] = []): Promise<TlsMaterial> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + days * 86_400_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex'),
    name: `CN=${commonName}`,
    notBefore,
    notAfter,
    signingAlgorithm: alg,
    keys: keys as never,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([...new Set(['localhost', '127.0.0.1', '::1', ...extraNames])].map(altName)),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as never);
  const b64 = Buffer.from(pkcs8)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return { cert: cert.toString('pem'), key: `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n` };
}

/**
 * Reads `tls.crt`/`tls.key` from `dir`, creating them on first use: self-signed for localhost and
 * `names` (the gateway passes the machine's host name and addresses, since it listens on all of
 * them by default). A certificate made earlier is kept as it is; removing the two files makes a
 * new one at the next start.
 */
export async function loadOrCreateCertificate(dir: string, names: string[] = []): Promise<TlsMaterial & { created: boolean; certPath: string }> {
  const certPath = join(dir, 'tls.crt');
  const keyPath = join(dir, 'tls.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), created: false, certPath };
  }
  mkdirSync(dir, { recursive: true });
  const material = await createSelfSignedCertificate('localhost', 825, names);
  writeFileSync(keyPath, material.key, { mode: 0o600 });
  writeFileSync(certPath, material.cert);
  return { ...material, created: true, certPath };
}

/** A certificate authority of the platform's own, for mutual TLS between its processes. */
export interface InternalCa extends TlsMaterial {
  /** A leaf certificate signed by this CA, for server and client use, valid for `names`. */
  issue(commonName: string, names?: string[]): Promise<TlsMaterial>;
}

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function pemOfPkcs8(pkcs8: ArrayBuffer): string {
  const b64 = Buffer.from(pkcs8)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

const serial = () => Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex');

/**
 * Makes an internal CA (ECDSA P-256) in memory. The embedded default uses one per start for the
 * gRPC channels between its services; deployments bring their own (cert-manager, an internal PKI).
 */
export async function createInternalCa(days = 825): Promise<InternalCa> {
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + days * 86_400_000);
  // A name of its own, and key identifiers: while certificates are renewed the old and the new CA
  // are trusted side by side (a bundle), and a verifier must find the one that signed a
  // certificate; with two CAs of one name OpenSSL takes the first and the signature fails.
  const caSerial = serial();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: caSerial,
    name: `CN=Monitoring Platform internal CA ${caSerial}`,
    notBefore,
    notAfter,
    signingAlgorithm: EC_P256,
    keys: keys as never,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never),
    ],
  });
  const key = pemOfPkcs8(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as never));
  return {
    cert: caCert.toString('pem'),
    key,
    async issue(commonName, names = ['localhost', '127.0.0.1', '::1']) {
      const leafKeys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: `CN=${commonName}`,
        issuer: caCert.subject,
        notBefore,
        notAfter,
        signingAlgorithm: EC_P256,
        publicKey: leafKeys.publicKey as never,
        signingKey: keys.privateKey as never,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
          new x509.SubjectAlternativeNameExtension(names.map(altName)),
          await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey as never),
        ],
      });
      return { cert: leaf.toString('pem'), key: pemOfPkcs8(await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey as never)) };
    },
  };
}
