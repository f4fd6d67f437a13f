import https from 'node:https';

/**
 * The keep-alive agent of one webhooks service: attempts to the same receiver reuse TLS
 * connections instead of paying a handshake each (the difference between hundreds and thousands
 * of deliveries per second). Idle sockets are closed after 4 s, under the 5 s keep-alive of
 * common servers, so a pooled socket is rarely one the receiver has already closed; when it is,
 * sendWebhook resends once on a fresh connection.
 */
export function createDeliveryAgent(): https.Agent {
  return new https.Agent({ keepAlive: true, keepAliveMsecs: 1000, timeout: 4000, maxFreeSockets: 512, scheduling: 'lifo' });
}
