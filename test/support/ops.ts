import http from 'node:http';

// The ops port of a process (docs/operations.md#the-ops-port): /livez, /readyz and the Prometheus /metrics exposition.

/** GET on the platform's ops port (plain HTTP, loopback). */
export function ops(port: number, path: string): Promise<{ status: number; text: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text, type: res.headers['content-type'] }));
      })
      .on('error', reject);
  });
}

/** The value of one series of a Prometheus text exposition (0 when absent). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const series = line.slice(0, line.lastIndexOf(' '));
    if (want.every((w) => series.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}
