import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueGrpcTls, PARTIES } from '@mp/grpc';

/**
 * `renew-grpc-tls --keys DIR`: the mTLS certificates of `keygen --mtls` run out after 825 days and
 * the services read them at start only. This makes their successors beside them, in
 * DIR/tls-next: a new CA (`ca.crt`), a certificate per party, and `ca-bundle.crt` (the new CA
 * and the CA in use) for the first of three rolls, so that no call is refused on the way
 * (docs/operations.md). The service keys are not touched; DIR/tls stays as it is.
 */
export async function renewGrpcTls(dir: string): Promise<string> {
  const currentCa = join(dir, 'tls', 'ca.crt');
  if (!existsSync(currentCa))
    throw new Error(`No ${currentCa}: renew-grpc-tls renews the certificates of keygen --mtls; make them with keygen --out ${dir} --mtls.`);
  const inUse = readFileSync(currentCa, 'utf8');
  const next = await issueGrpcTls();
  const out = join(dir, 'tls-next');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'ca.crt'), next.ca);
  writeFileSync(join(out, 'ca-bundle.crt'), `${next.ca.trimEnd()}\n${inUse.trimEnd()}\n`);
  for (const p of PARTIES) {
    writeFileSync(join(out, `${p}.crt`), next.certs[p].cert);
    writeFileSync(join(out, `${p}.key`), next.certs[p].key, { mode: 0o600 });
    chmodSync(join(out, `${p}.key`), 0o600);
  }
  const until = (pem: string) => new Date(new X509Certificate(pem).validTo).toISOString().slice(0, 10);
  return [
    `Wrote a new CA and certificates for ${PARTIES.join(', ')} to ${out} (valid until ${until(next.ca)}; the ones in use until ${until(inUse)}).`,
    `Roll them out in three steps, each followed by a restart of every pod (docs/operations.md):`,
    `  1. ca-bundle.crt as ca.crt (both CAs trusted), the certificates in use kept`,
    `  2. the new <party>.crt and <party>.key`,
    `  3. the new ca.crt alone; then move ${out} to ${join(dir, 'tls')}`,
  ].join('\n');
}
