import { readFileSync } from 'node:fs';
import { SettingError, type ServiceAuthSettings } from '@mp/kit';
import { readKeyring, type Party } from './keyring.js';
import type { ServiceAuth } from './tls.js';

/**
 * A standalone process's service identity from its settings. Without a key it refuses to start:
 * a service that accepted unauthenticated callers would trust whoever reaches its port.
 */
export function loadServiceAuth(party: Party, settings: ServiceAuthSettings): ServiceAuth {
  const { MP_SERVICE_KEY_FILE: keyFile, MP_SERVICE_PEER_KEYS_DIR: peersDir } = settings;
  if (!keyFile || !peersDir) {
    throw new SettingError(
      'MP_SERVICE_KEY_FILE, MP_SERVICE_PEER_KEYS_DIR',
      `MP_SERVICE_KEY_FILE and MP_SERVICE_PEER_KEYS_DIR must be set: the ${party} process authenticates every gRPC call with its service key (make the keys with \`npm run operator -- keygen --out DIR\`).`,
      true,
    );
  }
  const keyring = readKeyring(party, keyFile, peersDir);
  const tlsFiles = [settings.MP_GRPC_TLS_CA_FILE, settings.MP_GRPC_TLS_CERT_FILE, settings.MP_GRPC_TLS_KEY_FILE];
  if (tlsFiles.every((f) => !f)) return { keyring };
  if (tlsFiles.some((f) => !f))
    throw new SettingError(
      'MP_GRPC_TLS_CA_FILE, MP_GRPC_TLS_CERT_FILE, MP_GRPC_TLS_KEY_FILE',
      'MP_GRPC_TLS_CA_FILE, MP_GRPC_TLS_CERT_FILE and MP_GRPC_TLS_KEY_FILE go together: set all three for mutual TLS, or none.',
      true,
    );
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      throw new SettingError(name, `cannot read ${file}.`);
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
