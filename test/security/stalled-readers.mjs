// Opens `count` downloads of `path` on the gateway at 127.0.0.1:`port` and reports, one JSON line
// each, the status and length once the headers are in, and the body bytes received when the
// connection ends. Each stops reading once its headers are in, and the test stops this process
// (SIGSTOP) as well; on SIGCONT the downloads read on to their end.
import tls from 'node:tls';
import { setInterval, clearInterval } from 'node:timers';

const [port, count, path, key] = process.argv.slice(2);
// A socket that reads nothing keeps no process alive: this does, until every download has ended.
const alive = setInterval(() => undefined, 60_000);
let open = Number(count);
for (let i = 0; i < Number(count); i++) {
  const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca: process.env.TEST_CA });
  let head = Buffer.alloc(0);
  let body = -1;
  socket.on('error', () => undefined);
  socket.on('secureConnect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`));
  socket.on('data', (chunk) => {
    if (body >= 0) {
      body += chunk.length;
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    // From here on it reads nothing more (until the test continues it, see below).
    socket.pause();
    body = head.length - end - 4;
    const lines = head.subarray(0, end).toString('latin1').split('\r\n');
    const length = lines.find((l) => /^content-length:/i.test(l));
    console.log(JSON.stringify({ headers: i, status: Number(lines[0].split(' ')[1]), length: Number(length?.split(':')[1]) }));
  });
  socket.on('close', () => {
    console.log(JSON.stringify({ closed: i, body }));
    if (--open === 0) clearInterval(alive);
  });
  process.on('SIGCONT', () => socket.resume());
}
