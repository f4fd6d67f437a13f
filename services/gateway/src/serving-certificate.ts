import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { loadOrCreateCertificate, machineNames, type Logger } from '@mp/kit';
import type { GatewayConfig } from './config.js';

export interface CertificatePair {
  cert: string;
  key: string;
}

/**
 * The gateway's serving certificate and where it comes from: a pair handed in (tests, nothing to
 * reload), MP_TLS_CERT_FILE / MP_TLS_KEY_FILE, or the self-signed pair in MP_DATA_DIR/tls. A pair
 * from files can be read again, so a renewed certificate is served without a restart.
 */
export interface ServingCertificate {
  current: CertificatePair;
  path: string | null;
  /** Reads the files again: the new pair when it differs and is usable, null when unchanged. */
  reread(): CertificatePair | null;
}

/**
 * The names the self-signed certificate is made for besides localhost: the hosts of the public
 * base URLs, and the address the gateway binds (every address of the machine and its host name
 * when it binds all of them, the default).
 */
export function selfSignedNames(config: GatewayConfig): string[] {
  const names: string[] = [];
  for (const url of [config.MP_PUBLIC_BASE_URL, config.MP_PUBLIC_SANDBOX_BASE_URL]) {
    if (url) names.push(new URL(url).hostname.replace(/^\[(.*)\]$/, '$1'));
  }
  const host = config.MP_BIND_HOST;
  if (host === '0.0.0.0' || host === '::' || host === '') names.push(...machineNames());
  else names.push(host);
  return names;
}

export async function servingCertificate(config: GatewayConfig, handedIn: CertificatePair | undefined): Promise<ServingCertificate> {
  if (handedIn) return { current: handedIn, path: null, reread: () => null };
  let certFile: string;
  let keyFile: string;
  let current: CertificatePair;
  if (config.MP_TLS_CERT_FILE && config.MP_TLS_KEY_FILE) {
    certFile = config.MP_TLS_CERT_FILE;
    keyFile = config.MP_TLS_KEY_FILE;
    current = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } else {
    const dir = join(resolve(config.MP_DATA_DIR), 'tls');
    const made = await loadOrCreateCertificate(dir, selfSignedNames(config));
    certFile = made.certPath;
    keyFile = join(dir, 'tls.key');
    current = { cert: made.cert, key: made.key };
  }
  const serving: ServingCertificate = {
    current,
    path: certFile,
    reread() {
      const next = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
      if (next.cert === serving.current.cert && next.key === serving.current.key) return null;
      // A key that does not belong to the certificate (one file renewed, the other not yet) is
      // refused here, and the pair that works goes on serving.
      createSecureContext(next);
      serving.current = next;
      return next;
    },
  };
  return serving;
}

/** When a certificate stops being valid (for the log line of a reload). */
export const validUntil = (pem: string): string => new Date(new X509Certificate(pem).validTo).toISOString();

/**
 * Looks at the certificate files every `intervalMs` and hands a changed pair to `apply`; a pair
 * that cannot be used is logged and the one in use kept. The timer does not keep the process up.
 */
export function watchCertificate(serving: ServingCertificate, intervalMs: number, apply: (pair: CertificatePair) => void, logger: Logger): () => void {
  if (!serving.path || intervalMs <= 0) return () => {};
  let reported = '';
  const timer = setInterval(() => {
    try {
      const next = serving.reread();
      reported = '';
      if (next) {
        apply(next);
        logger.info({ file: serving.path, validUntil: validUntil(next.cert) }, 'TLS certificate reloaded');
      }
    } catch (err) {
      // once per problem, not at every look
      if (String(err) === reported) return;
      reported = String(err);
      logger.error({ err, file: serving.path }, 'TLS certificate files changed but cannot be used; the certificate in use is kept');
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
