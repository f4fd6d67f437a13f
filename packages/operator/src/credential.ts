import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadServiceAuth, OPERATOR_CREDENTIAL_FILE, readOperatorCredential, type ServiceAuth } from '@mp/grpc';

/** Where to call identity and with which operator credential. */
export interface OperatorCredential {
  identityAddress: string;
  auth: ServiceAuth;
  source: string;
  /** True for the operator.json of MP_DATA_DIR (the platform running on that folder wrote it). */
  fromDataDir: boolean;
}

/**
 * The operator credential: `--credential FILE` (or MP_OPERATOR_CREDENTIAL_FILE), the
 * operator.json that `npm start` writes into its data folder; otherwise a deployment's files
 * through the same settings a service reads (MP_SERVICE_KEY_FILE = the operator key,
 * MP_SERVICE_PEER_KEYS_DIR with identity.pub, MP_GRPC_TLS_*) and MP_IDENTITY_ADDR.
 */
export function loadOperatorCredential(env: Record<string, string | undefined>, credentialFile?: string): OperatorCredential {
  const fromDataDir = !credentialFile && !env.MP_OPERATOR_CREDENTIAL_FILE && !env.MP_SERVICE_KEY_FILE;
  const file =
    credentialFile ?? env.MP_OPERATOR_CREDENTIAL_FILE ?? (fromDataDir ? join(resolve(env.MP_DATA_DIR ?? './.data'), OPERATOR_CREDENTIAL_FILE) : undefined);
  if (file) {
    if (!existsSync(file))
      throw new Error(
        `No operator credential at ${file}: start the platform (npm start) or set MP_SERVICE_KEY_FILE and MP_SERVICE_PEER_KEYS_DIR to the operator's key files.`,
      );
    const written = readOperatorCredential(file);
    return { identityAddress: env.MP_IDENTITY_ADDR ?? written.identityAddress, auth: written.auth, source: file, fromDataDir };
  }
  return {
    identityAddress: env.MP_IDENTITY_ADDR ?? '127.0.0.1:50051',
    auth: loadServiceAuth('operator', env),
    source: env.MP_SERVICE_KEY_FILE!,
    fromDataDir: false,
  };
}
