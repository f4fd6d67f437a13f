// A local HTTPS webhook receiver for the quickstart (README "Quickstart"). It makes a self-signed
// certificate under RECEIVER_DIR (default .data/receiver) on its first start, so that the platform
// can be told to trust it (NODE_EXTRA_CA_CERTS=.data/receiver/tls.crt), and prints every delivery
// it receives as one JSON line. It answers 204, so each delivery is recorded as delivered.
//
//   node examples/webhook-receiver.mjs            # https://127.0.0.1:9443/hook
//   RECEIVER_PORT=0 node examples/webhook-receiver.mjs
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { createSelfSignedCertificate } from '@mp/kit';

const dir = process.env.RECEIVER_DIR ?? '.data/receiver';
const certPath = join(dir, 'tls.crt');
const keyPath = join(dir, 'tls.key');
if (!existsSync(certPath)) {
  mkdirSync(dir, { recursive: true });
  const tls = await createSelfSignedCertificate('localhost');
  writeFileSync(keyPath, tls.key, { mode: 0o600 });
  writeFileSync(certPath, tls.cert);
}

const server = https.createServer({ cert: readFileSync(certPath), key: readFileSync(keyPath) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let event = {};
    try {
      event = JSON.parse(body);
    } catch {
      // not JSON: printed as received below
    }
    console.log(
      JSON.stringify({
        received: event.event_type ?? null,
        event_id: req.headers['x-service-event-id'] ?? null,
        signature: req.headers['x-service-signature'] ?? null,
        timestamp: req.headers['x-service-timestamp'] ?? null,
      }),
    );
    res.writeHead(204).end();
  });
});
server.listen(Number(process.env.RECEIVER_PORT ?? 9443), '127.0.0.1', () => {
  console.log(`Webhook receiver listening at https://127.0.0.1:${server.address().port}/hook (certificate ${certPath})`);
});
