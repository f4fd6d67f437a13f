import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { keyringFromPem } from './keyring.js';
import type { PlatformKeys } from './platform-keys.js';
import type { ServiceAuth } from './tls.js';

/** Where `npm start` leaves its operator credential in the data folder (its keys change every start). */
export const OPERATOR_CREDENTIAL_FILE = 'operator.json';

/** The file's content: written by the one-process platform, read by the operator command. */
interface OperatorCredentialFile {
  identity_address: string;
  service_key: string;
  peer_keys: { identity: string };
  tls: { ca: string; cert: string; key: string } | null;
}

/**
 * Writes what the operator command needs to reach this platform's identity service: the address,
 * the operator's private key, identity's public key and the mTLS material. Readable by the owner
 * only: it is the operator credential of this platform.
 */
export function writeOperatorCredential(dataDir: string, keys: PlatformKeys, identityAddress: string): string {
  const file = join(resolve(dataDir), OPERATOR_CREDENTIAL_FILE);
  const content: OperatorCredentialFile = {
    identity_address: identityAddress,
    service_key: keys.pairs.operator.privateKey,
    peer_keys: { identity: keys.pairs.identity.publicKey },
    tls: keys.tls ? { ca: keys.tls.ca, cert: keys.tls.certs.operator.cert, key: keys.tls.certs.operator.key } : null,
  };
  writeFileSync(file, JSON.stringify(content, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** The operator's ServiceAuth and identity's address from a file writeOperatorCredential made. */
export function readOperatorCredential(file: string): { identityAddress: string; auth: ServiceAuth } {
  const content = JSON.parse(readFileSync(file, 'utf8')) as OperatorCredentialFile;
  const keyring = keyringFromPem('operator', content.service_key, { identity: content.peer_keys.identity });
  return { identityAddress: content.identity_address, auth: content.tls ? { keyring, tls: content.tls } : { keyring } };
}
