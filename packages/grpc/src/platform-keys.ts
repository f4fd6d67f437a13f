import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInternalCa, type TlsMaterial } from '@mp/kit';
import { generateServiceKeyPair, keyringFromPem, PARTIES, type KeyPairPem, type Party } from './keyring.js';
import { loadServiceAuth } from './load-auth.js';
import type { GrpcTls, ServiceAuth } from './tls.js';

/**
 * Every party's service key pair (and, with mTLS, an internal CA and a certificate per party),
 * made in memory: what the embedded default and the tests use. A deployment makes the same files
 * once with `mp-operator keygen` and mounts each pod's own.
 */
export interface PlatformKeys {
  pairs: Record<Party, KeyPairPem>;
  tls: { ca: string; certs: Record<Party, TlsMaterial> } | null;
  /** The keyring and mTLS material of one party. */
  authFor(party: Party): ServiceAuth;
  /**
   * Writes the files a separate process of each party reads: `<dir>/<party>.key` (its private
   * key), `<dir>/peers/<party>.pub`, and with mTLS `<dir>/tls/ca.crt`, `<party>.crt`, `<party>.key`.
   */
  writeFiles(dir: string): void;
}

/**
 * A new internal CA and a certificate per party from it, each naming its party (what a caller
 * checks, whatever address it dialled): keygen --mtls, and the renewal of those certificates.
 */
export async function issueGrpcTls(): Promise<{ ca: string; certs: Record<Party, TlsMaterial> }> {
  const ca = await createInternalCa();
  const certs = Object.fromEntries(
    await Promise.all(PARTIES.map(async (p) => [p, await ca.issue(p, ['localhost', '127.0.0.1', '::1', p])] as const)),
  ) as Record<Party, TlsMaterial>;
  return { ca: ca.cert, certs };
}

export async function generatePlatformKeys(opts: { mtls: boolean }): Promise<PlatformKeys> {
  const pairs = Object.fromEntries(PARTIES.map((p) => [p, generateServiceKeyPair()])) as Record<Party, KeyPairPem>;
  const tls: PlatformKeys['tls'] = opts.mtls ? await issueGrpcTls() : null;
  const publicKeys = Object.fromEntries(PARTIES.map((p) => [p, pairs[p].publicKey]));
  return {
    pairs,
    tls,
    authFor(party) {
      const keyring = keyringFromPem(party, pairs[party].privateKey, publicKeys);
      const material: GrpcTls | undefined = tls ? { ca: tls.ca, cert: tls.certs[party].cert, key: tls.certs[party].key } : undefined;
      return material ? { keyring, tls: material } : { keyring };
    },
    writeFiles(dir) {
      mkdirSync(join(dir, 'peers'), { recursive: true });
      for (const p of PARTIES) {
        writeFileSync(join(dir, `${p}.key`), pairs[p].privateKey, { mode: 0o600 });
        chmodSync(join(dir, `${p}.key`), 0o600);
        writeFileSync(join(dir, 'peers', `${p}.pub`), pairs[p].publicKey);
      }
      if (tls) {
        mkdirSync(join(dir, 'tls'), { recursive: true });
        writeFileSync(join(dir, 'tls', 'ca.crt'), tls.ca);
        for (const p of PARTIES) {
          writeFileSync(join(dir, 'tls', `${p}.crt`), tls.certs[p].cert);
          writeFileSync(join(dir, 'tls', `${p}.key`), tls.certs[p].key, { mode: 0o600 });
        }
      }
    },
  };
}

/**
 * The settings that point a separate process of `party` at the files writeFiles(dir) made: what a
 * pod's environment holds (mutual TLS too when the folder has it).
 */
export function keyFileSettings(dir: string, party: Party): Record<string, string> {
  const settings: Record<string, string> = { MP_SERVICE_KEY_FILE: join(dir, `${party}.key`), MP_SERVICE_PEER_KEYS_DIR: join(dir, 'peers') };
  if (existsSync(join(dir, 'tls', 'ca.crt'))) {
    Object.assign(settings, {
      MP_GRPC_TLS_CA_FILE: join(dir, 'tls', 'ca.crt'),
      MP_GRPC_TLS_CERT_FILE: join(dir, 'tls', `${party}.crt`),
      MP_GRPC_TLS_KEY_FILE: join(dir, 'tls', `${party}.key`),
    });
  }
  return settings;
}

/** The ServiceAuth of `party` from the files writeFiles(dir) made (scripts acting as that party). */
export function authFromKeyFiles(dir: string, party: Party): ServiceAuth {
  return loadServiceAuth(party, keyFileSettings(dir, party));
}
