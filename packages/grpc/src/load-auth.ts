import { readFileSync } from 'node:fs';
import type { ServiceAuthSettings } from '@mp/kit';
import { readKeyring, type Party } from './keyring.js';
import type { ServiceAuth } from './tls.js';

/**
 * A standalone process's service identity from its settings. Without a key it refuses to start:
 * a service that accepted unauthenticated callers would trust whoever reaches its port.
 */
export function loadServiceAuth(party: Party, settings: ServiceAuthSettings): ServiceAuth {
  const { MP_SERVICE_KEY_FILE: keyFile, MP_SERVICE_PEER_KEYS_DIR: peersDir } = settings;
  if (!keyFile || !peersDir) {
    throw new Error(
      `MP_SERVICE_KEY_FILE and MP_SERVICE_PEER_KEYS_DIR must be set: the ${party} process authenticates every gRPC call with its service key (make the keys with \`npm run operator -- keygen --out DIR\`).`,
    );
  }
  const keyring = readKeyring(party, keyFile, peersDir);
  const tlsFiles = [settings.MP_GRPC_TLS_CA_FILE, settings.MP_GRPC_TLS_CERT_FILE, settings.MP_GRPC_TLS_KEY_FILE];
  if (tlsFiles.every((f) => !f)) return { keyring };
  if (tlsFiles.some((f) => !f))
    throw new Error('MP_GRPC_TLS_CA_FILE, MP_GRPC_TLS_CERT_FILE and MP_GRPC_TLS_KEY_FILE go together: set all three for mutual TLS, or none.');
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${name}: cannot read ${file}.`);
    }
  };
  return {
    keyring,
    tls: {
      ca: read('MP_GRPC_TLS_CA_FILE', settings.MP_GRPC_TLS_CA_FILE!),
      cert: read('MP_GRPC_TLS_CERT_FILE', settings.MP_GRPC_TLS_CERT_FILE!),
      key: read('MP_GRPC_TLS_KEY_FILE', settings.MP_GRPC_TLS_KEY_FILE!),
    },
  };
}

/**
 * loadServiceAuth for a process entry: on failure one line on stderr naming the settings to
 * change, and exit code 1 — a process that cannot authenticate its callers must not start.
 */
export function serviceAuthOrExit(party: Party, settings: ServiceAuthSettings): ServiceAuth {
  try {
    return loadServiceAuth(party, settings);
  } catch (err) {
    process.stderr.write(`${party}: cannot start: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
