// Opens `count` downloads of `path` on the gateway at 127.0.0.1:`port` and reports, one JSON line
// each, the status and length once the headers are in, and the body bytes received when the
// connection ends. The test stops this process (SIGSTOP) to make clients that read nothing more.
import tls from 'node:tls';

const [port, count, path, key] = process.argv.slice(2);
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
    body = head.length - end - 4;
    const lines = head.subarray(0, end).toString('latin1').split('\r\n');
    const length = lines.find((l) => /^content-length:/i.test(l));
    console.log(JSON.stringify({ headers: i, status: Number(lines[0].split(' ')[1]), length: Number(length?.split(':')[1]) }));
  });
  socket.on('close', () => console.log(JSON.stringify({ closed: i, body })));
}
