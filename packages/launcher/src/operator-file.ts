import { writeFileSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PlatformKeys } from '@mp/grpc';

/** Where `npm run operator` finds the running one-process platform (its keys change every start). */
export const OPERATOR_FILE = 'operator.json';

/**
 * Writes what the operator command needs to reach this platform's identity service: the address,
 * the operator's private key, identity's public key and the mTLS material. Readable by the owner
 * only: it is the operator credential of this platform.
 */
export function writeOperatorFile(dataDir: string, keys: PlatformKeys, identityAddress: string): string {
  const file = join(resolve(dataDir), OPERATOR_FILE);
  const tls = keys.tls ? { ca: keys.tls.ca, cert: keys.tls.certs.operator.cert, key: keys.tls.certs.operator.key } : null;
  const content = {
    identity_address: identityAddress,
    service_key: keys.pairs.operator.privateKey,
    peer_keys: { identity: keys.pairs.identity.publicKey },
    tls,
  };
  writeFileSync(file, JSON.stringify(content, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
