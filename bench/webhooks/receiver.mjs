// The bench's HTTPS receiver, in a process of its own so that the load generator does not delay
// arrivals. Reports [event_type, key, arrival time in ms since the epoch] to the parent in batches.
import https from 'node:https';
import { setInterval } from 'node:timers';

const { cert, key } = JSON.parse(process.argv[2]);
let batch = [];
const server = https.createServer({ cert, key, keepAliveTimeout: 30_000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    res.writeHead(200).end();
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      batch.push([body.event_type, body.data?.number ?? body.data?.chunk ?? null, at]);
    } catch {
      // the baseline posts no JSON
    }
  });
});
setInterval(() => {
  if (batch.length === 0) return;
  process.send(batch);
  batch = [];
}, 25);
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
