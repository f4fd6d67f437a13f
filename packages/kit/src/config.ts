import { SettingError } from './startup.js';
import { z } from 'zod';

/**
 * Parses a service's settings once at boot. Code receives the typed result and never reads
 * process.env itself. A bad value fails with a message naming the variable and what it allows.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
  // A SettingError, so that a process's start-up failure line names the settings to change.
  const names = [...new Set(result.error.issues.map((i) => String(i.path[0] ?? '(root)')))].join(', ');
  throw new SettingError(names, `Invalid configuration:\n${lines.join('\n')}`, true);
}

/** A boolean environment variable: "true"/"1" or "false"/"0"/unset. */
export const envBoolean = (fallback = false) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1'));

/** A TCP port; 0 asks the OS for a free one (tests). */
export const envPort = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const optionalPath = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());

/**
 * How a process authenticates its gRPC calls and callers (ADR 0016): its own service key, its
 * peers' public keys, and optional mutual-TLS files. Part of every process's settings.
 */
export const serviceAuthSettings = {
  /** This process's X25519 private key (PEM); made by `mp-operator keygen`. */
  MP_SERVICE_KEY_FILE: optionalPath,
  /** A folder of `<party>.pub` public keys of the processes it calls or is called by. */
  MP_SERVICE_PEER_KEYS_DIR: optionalPath,
  /**
   * Mutual TLS on gRPC: the CA, and this process's certificate and key (all three, or none). A
   * service's certificate must name the party (`identity`, …): clients check that name.
   */
  MP_GRPC_TLS_CA_FILE: optionalPath,
  MP_GRPC_TLS_CERT_FILE: optionalPath,
  MP_GRPC_TLS_KEY_FILE: optionalPath,
};

export type ServiceAuthSettings = { [K in keyof typeof serviceAuthSettings]?: string | undefined };
