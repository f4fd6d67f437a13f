import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The parties that call each other's gRPC ports: the services, the gateway and the operator command. */
export const PARTIES = ['gateway', 'identity', 'projects', 'monitoring-data', 'reports', 'webhooks', 'operator'] as const;
export type Party = (typeof PARTIES)[number];

/**
 * A process's service identity: its own X25519 private key and the public keys of its peers.
 *
 * A caller context from A to B is authenticated with an HMAC key that only A and B can derive
 * (X25519 of one's private key with the other's public key, then HKDF over "A>B"). So it costs an
 * HMAC per call instead of a signature (microseconds), yet nothing but A's or B's private key can
 * produce it: a compromised webhooks pod cannot speak to identity as the gateway. See ADR 0016.
 */
export class ServiceKeyring {
  private readonly pairKeys = new Map<string, Buffer>();

  constructor(
    readonly self: string,
    private readonly privateKey: KeyObject,
    private readonly peers: ReadonlyMap<string, KeyObject>,
  ) {
    if (privateKey.asymmetricKeyType !== 'x25519') throw new Error(`The service key of ${self} must be an X25519 private key.`);
  }

  /** The MAC key of contexts sent from `issuer` to `audience`; one of them is this process. */
  keyFor(issuer: string, audience: string): Buffer | null {
    const peer = issuer === this.self ? audience : audience === this.self ? issuer : null;
    if (peer === null) return null;
    const id = `${issuer}>${audience}`;
    let key = this.pairKeys.get(id);
    if (!key) {
      const publicKey = this.peers.get(peer);
      if (!publicKey) return null;
      const shared = diffieHellman({ privateKey: this.privateKey, publicKey });
      key = Buffer.from(hkdfSync('sha256', shared, 'mp-caller-context-v1', id, 32));
      this.pairKeys.set(id, key);
    }
    return key;
  }
}

export interface KeyPairPem {
  privateKey: string;
  publicKey: string;
}

/** A new X25519 key pair as PEM (PKCS#8 private, SPKI public). */
export function generateServiceKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A keyring from PEM text: this party's private key and its peers' public keys. */
export function keyringFromPem(self: string, privateKeyPem: string, peerPublicKeys: Record<string, string>): ServiceKeyring {
  const peers = new Map<string, KeyObject>();
  for (const [name, pem] of Object.entries(peerPublicKeys)) if (name !== self) peers.set(name, createPublicKey(pem));
  return new ServiceKeyring(self, createPrivateKey(privateKeyPem), peers);
}

/**
 * Reads a keyring from files, as a pod mounts them: its own private key (MP_SERVICE_KEY_FILE) and
 * a folder of peers' public keys named `<party>.pub` (MP_SERVICE_PEER_KEYS_DIR).
 */
export function readKeyring(self: string, keyFile: string, peerKeysDir: string): ServiceKeyring {
  if (!existsSync(keyFile)) throw new Error(`MP_SERVICE_KEY_FILE: no file at ${keyFile}.`);
  if (!existsSync(peerKeysDir)) throw new Error(`MP_SERVICE_PEER_KEYS_DIR: no folder at ${peerKeysDir}.`);
  const peers: Record<string, string> = {};
  for (const file of readdirSync(peerKeysDir)) {
    if (file.endsWith('.pub')) peers[basename(file, '.pub')] = readFileSync(join(peerKeysDir, file), 'utf8');
  }
  try {
    return keyringFromPem(self, readFileSync(keyFile, 'utf8'), peers);
  } catch (err) {
    throw new Error(`MP_SERVICE_KEY_FILE / MP_SERVICE_PEER_KEYS_DIR: ${(err as Error).message}`);
  }
}
