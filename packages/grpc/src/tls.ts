import { credentials, ServerCredentials, type ChannelCredentials } from '@grpc/grpc-js';
import type { ServiceKeyring } from './keyring.js';

/**
 * Mutual TLS material of a process: the CA that signs every party's certificate, and this
 * process's own certificate and key (used as server and as client certificate).
 */
export interface GrpcTls {
  ca: string;
  cert: string;
  key: string;
}

/** What a process needs to take part in gRPC: its keyring, and mTLS material when configured. */
export interface ServiceAuth {
  keyring: ServiceKeyring;
  tls?: GrpcTls;
}

export function serverCredentials(tls: GrpcTls | undefined): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  // checkClientCertificate: a peer without a certificate of our CA never gets to send a request.
  return ServerCredentials.createSsl(Buffer.from(tls.ca), [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }], true);
}

/**
 * Client credentials for calling `party`. Its certificate must carry the party's name (those of
 * `mp-operator keygen --mtls` do), whatever address it is reached at: a client knows it reached
 * that service, not merely some holder of a platform certificate.
 */
export function channelCredentials(tls: GrpcTls | undefined, party: string): { creds: ChannelCredentials; options: Record<string, string> } {
  if (!tls) return { creds: credentials.createInsecure(), options: {} };
  return {
    creds: credentials.createSsl(Buffer.from(tls.ca), Buffer.from(tls.key), Buffer.from(tls.cert)),
    options: { 'grpc.ssl_target_name_override': party, 'grpc.default_authority': party },
  };
}
