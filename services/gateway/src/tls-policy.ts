import type { TlsOptions } from 'node:tls';

/**
 * The gateway's TLS: 1.2 or 1.3 only; for 1.2 only forward-secret AEAD suites (ECDHE with
 * AES-GCM or ChaCha20-Poly1305), none with CBC or SHA-1. The TLS 1.3 suites are named as well:
 * Node turns TLS 1.3 off when the list holds none.
 */
export const TLS_POLICY: TlsOptions = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  honorCipherOrder: true,
};
