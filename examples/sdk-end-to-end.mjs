// The quickstart again with the TypeScript SDK (@mp/sdk), end to end, and a webhook receiver in
// this process that checks every delivery with verifyWebhook. Start the platform as the README's
// Quickstart says (it must trust .data/receiver/tls.crt, which examples/webhook-receiver.mjs makes),
// then:
//
//   ADMIN_PASSWORD='<printed password>' node examples/sdk-end-to-end.mjs
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { ApiError, MonitoringPlatform, verifyWebhook } from '@mp/sdk';

// The platform's own settings give the defaults (as for examples/quickstart.sh); API and CA override them.
const baseUrl = process.env.API ?? `https://localhost:${process.env.MP_HTTPS_PORT ?? '8443'}/v3`;
const ca = readFileSync(process.env.CA ?? join(process.env.MP_DATA_DIR ?? '.data', 'tls', 'tls.crt'));
const receiverDir = process.env.RECEIVER_DIR ?? '.data/receiver';

// A user session: the SDK signs in on first use and refreshes on 401002.
const admin = new MonitoringPlatform({ baseUrl, ca, credentials: { username: process.env.ADMIN_USERNAME ?? 'admin', password: process.env.ADMIN_PASSWORD } });
const key = await admin.request('POST /api-keys', {
  body: { name: 'sdk example', permissions: ['project:read', 'project:write', 'data:read', 'data:write', 'system:admin'] },
});
const mp = new MonitoringPlatform({ baseUrl, ca, apiKey: key.key });

// The receiver: verifies each delivery against the webhook's secret (known once the webhook exists).
let secret = '';
const verified = [];
const receiver = https.createServer({ cert: readFileSync(join(receiverDir, 'tls.crt')), key: readFileSync(join(receiverDir, 'tls.key')) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      verified.push(verifyWebhook(secret, req.headers, Buffer.concat(chunks)));
      res.writeHead(204).end();
    } catch (err) {
      console.log(`refused a delivery: ${err.message}`);
      res.writeHead(401).end();
    }
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));

try {
  const project = await mp.request('POST /projects', { body: { name: 'Harbour quay wall', number: `HQW-${Date.now()}`, start_date: '2026-01-01' } });
  const point = await mp.request('POST /projects/{project_id}/points', {
    path: { project_id: project.id },
    body: { number: 'Q-01', name: 'Quay crest', sensor_type: 'total_station', reference: { x: 1, y: 2, z: 3 }, thresholds: { warning: 10, alarm: 20 } },
  });
  const webhook = await mp.request('POST /webhooks', {
    body: { name: 'sdk example', url: `https://127.0.0.1:${receiver.address().port}/hook`, events: ['data.created'] },
  });
  secret = webhook.secret;
  await mp.request('PUT /projects/{project_id}/status', { path: { project_id: project.id }, body: { status: 'in_progress' } });
  const written = await mp.request('POST /projects/{project_id}/data', {
    path: { project_id: project.id },
    body: { records: [0, 1, 2].map((h) => ({ point_id: point.id, measured_at: `2026-03-01T0${h}:00:00Z`, values: { dz: 1 + h / 2 } })) },
  });
  console.log(`written: ${written.total_count} records`);
  const series = await mp.request('GET /points/{point_id}/series', {
    path: { point_id: point.id },
    query: { from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z', interval_seconds: 3600 },
  });
  console.log(`series: ${series.buckets.reduce((n, b) => n + b.count, 0)} readings`);
  let projects = 0;
  for await (const p of mp.paginate('GET /projects', { query: { limit: 10 } })) projects += p.id ? 1 : 0;
  console.log(`projects: ${projects}`);
  const test = await mp.request('POST /webhooks/{webhook_id}/test', { path: { webhook_id: webhook.id } });
  console.log(`test event: ${test.status}`);
  console.log(`verified deliveries: ${verified.map((e) => e.event_type).join(', ')}`);
  try {
    await mp.request('GET /projects/{project_id}', { path: { project_id: 'prj_00000000000000000000' } });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    console.log(`typed error: ${err.code} on ${err.field} (request ${err.requestId})`);
  }
} finally {
  receiver.close();
}
