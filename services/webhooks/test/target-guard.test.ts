import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { DomainError } from '@mp/errors';
import { startHttpsReceiver, testCertificate, type HttpsReceiver } from '@mp/testing';
import { assertWebhookUrlAllowed, guardedLookup, isForbiddenAddress } from '../src/delivery/target-guard.js';

describe('isForbiddenAddress', () => {
  const forbidden: [string, string][] = [
    ['0.0.0.0/8', '0.0.0.0'],
    ['0.0.0.0/8', '0.255.1.2'],
    ['10/8', '10.0.0.1'],
    ['10/8', '10.255.255.255'],
    ['100.64/10', '100.64.0.1'],
    ['100.64/10', '100.127.255.254'],
    ['127/8', '127.0.0.1'],
    ['127/8', '127.255.0.9'],
    ['169.254/16', '169.254.169.254'],
    ['172.16/12', '172.16.0.1'],
    ['172.16/12', '172.31.255.255'],
    ['192.0.0/24', '192.0.0.8'],
    ['192.0.2/24', '192.0.2.55'],
    ['192.88.99/24', '192.88.99.1'],
    ['192.168/16', '192.168.1.1'],
    ['198.18/15', '198.18.0.1'],
    ['198.18/15', '198.19.255.255'],
    ['198.51.100/24', '198.51.100.7'],
    ['203.0.113/24', '203.0.113.200'],
    ['224/4 multicast', '224.0.0.1'],
    ['224/4 multicast', '239.255.255.250'],
    ['240/4 reserved', '240.0.0.1'],
    ['240/4 reserved', '254.1.2.3'],
    ['broadcast', '255.255.255.255'],
    ['legacy IPv4 spelling', '2130706433'],
    ['legacy IPv4 spelling', '0x7f.0.0.1'],
    ['legacy IPv4 spelling', '127.1'],
    ['legacy IPv4 spelling', '0177.0.0.1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 unspecified (long form)', '0:0:0:0:0:0:0:0'],
    ['IPv6 loopback', '::1'],
    ['IPv6 loopback (long form)', '0000:0000:0000:0000:0000:0000:0000:0001'],
    ['IPv6 loopback (bracketed)', '[::1]'],
    ['fc00::/7 unique-local', 'fc00::1'],
    ['fc00::/7 unique-local', 'fd12:3456:789a::1'],
    ['fe80::/10 link-local', 'fe80::1'],
    ['fe80::/10 link-local with zone', 'fe80::1%eth0'],
    ['fe80::/10 link-local', 'febf:ffff::1'],
    ['ff00::/8 multicast', 'ff02::1'],
    ['ff00::/8 multicast', 'FF05::1:3'],
    ['2001:db8::/32 documentation', '2001:db8::1'],
    ['2001:db8::/32 documentation', '2001:0DB8:ffff::'],
    ['IPv4-mapped dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped dotted', '::FFFF:10.1.2.3'],
    ['IPv4-mapped dotted (long form)', '0:0:0:0:0:ffff:192.168.0.1'],
    ['IPv4-mapped hex', '::ffff:7f00:1'],
    ['IPv4-mapped hex', '::ffff:a9fe:a9fe'],
    ['IPv4-mapped hex (bracketed)', '[::ffff:7f00:1]'],
    ['IPv4-mapped unspecified', '::ffff:0:0'],
    ['NAT64 dotted', '64:ff9b::127.0.0.1'],
    ['NAT64 hex', '64:ff9b::a00:1'],
    ['NAT64 hex', '64:ff9b::a9fe:a9fe'],
    ['NAT64 local-use', '64:ff9b:1::808:808'],
    ['IPv4-compatible', '::127.0.0.1'],
    ['IPv4-compatible', '::7f00:1'],
    ['IPv4-compatible (public embedded, deprecated form)', '::8.8.8.8'],
    ['6to4 embedding 127.0.0.1', '2002:7f00:1::'],
    ['6to4 embedding 10.0.0.1', '2002:a00:1::1'],
    ['6to4 embedding 192.168.1.1', '2002:c0a8:101:0:0:0:0:1'],
    ['Teredo', '2001::1'],
    ['not an address (fails closed)', 'example.com'],
    ['not an address (fails closed)', ''],
  ];
  it.each(forbidden)('%s: %s is forbidden', (_range, ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '9.255.255.255',
    '11.0.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '126.255.255.255',
    '128.0.0.1',
    '169.253.255.255',
    '172.15.255.255',
    '172.32.0.1',
    '192.0.1.1',
    '192.0.3.1',
    '192.167.255.255',
    '192.169.0.1',
    '198.17.255.255',
    '198.20.0.1',
    '198.51.101.1',
    '203.0.112.1',
    '223.255.255.255',
    '2606:4700::1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001::200e',
    '[2606:4700::1]',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:db9::1',
  ];
  it.each(allowed)('%s is allowed', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

async function expect422(p: Promise<void>, detail: RegExp) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  const de = err as DomainError;
  expect(de.code).toBe('422103');
  expect(de.field).toBe('url');
  expect(de.detail).toMatch(detail);
  expect(de.suggestion.length).toBeGreaterThan(0);
}

describe('assertWebhookUrlAllowed', () => {
  const publicResolve = async () => ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'];

  it('allows a public https URL', async () => {
    await expect(assertWebhookUrlAllowed('https://hooks.example.com/x', { allowPrivate: false, resolve: publicResolve })).resolves.toBeUndefined();
    await expect(assertWebhookUrlAllowed('https://8.8.8.8/hook', { allowPrivate: false })).resolves.toBeUndefined();
    await expect(assertWebhookUrlAllowed('https://[2606:4700::1]:8443/hook', { allowPrivate: false })).resolves.toBeUndefined();
  });

  it('refuses a URL that does not parse', async () => {
    await expect422(assertWebhookUrlAllowed('not a url', { allowPrivate: false, resolve: publicResolve }), /valid/);
    await expect422(assertWebhookUrlAllowed('/relative/path', { allowPrivate: true }), /valid/);
  });

  it('refuses http:// and other schemes', async () => {
    await expect422(assertWebhookUrlAllowed('http://hooks.example.com/x', { allowPrivate: false, resolve: publicResolve }), /https/);
    await expect422(assertWebhookUrlAllowed('ftp://hooks.example.com/x', { allowPrivate: false, resolve: publicResolve }), /https/);
  });

  it('refuses port 0 and ports outside 1-65535, with private targets allowed or not', async () => {
    for (const allowPrivate of [false, true]) {
      await expect422(assertWebhookUrlAllowed('https://hooks.example.com:0/x', { allowPrivate, resolve: publicResolve }), /port must be 1 to 65535/);
      await expect422(assertWebhookUrlAllowed('https://8.8.8.8:00/x', { allowPrivate, resolve: publicResolve }), /port must be 1 to 65535/);
      await expect422(assertWebhookUrlAllowed('https://hooks.example.com:65536/x', { allowPrivate, resolve: publicResolve }), /valid/);
    }
    await expect(assertWebhookUrlAllowed('https://hooks.example.com:65535/x', { allowPrivate: false, resolve: publicResolve })).resolves.toBeUndefined();
    await expect(assertWebhookUrlAllowed('https://hooks.example.com:1/x', { allowPrivate: false, resolve: publicResolve })).resolves.toBeUndefined();
  });

  it('quotes at most a short excerpt of a long host', async () => {
    const host = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`;
    const err = await assertWebhookUrlAllowed(`https://${host}/x`, { allowPrivate: false, resolve: async () => ['10.0.0.1'] }).catch((e: DomainError) => e);
    expect((err as DomainError).detail).not.toContain(host);
    expect((err as DomainError).detail.length).toBeLessThan(200);
  });

  it('refuses credentials in the URL', async () => {
    await expect422(assertWebhookUrlAllowed('https://user:pass@hooks.example.com/x', { allowPrivate: false, resolve: publicResolve }), /credentials/);
    await expect422(assertWebhookUrlAllowed('https://user@hooks.example.com/x', { allowPrivate: false, resolve: publicResolve }), /credentials/);
  });

  it('refuses private IP literals in any spelling', async () => {
    for (const url of [
      'https://127.0.0.1/x',
      'https://10.0.0.5:8443/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[::ffff:7f00:1]/x',
      'https://[fd00::1]/x',
      'https://2130706433/x',
      'https://0x7f.1/x',
    ]) {
      await expect422(assertWebhookUrlAllowed(url, { allowPrivate: false, resolve: publicResolve }), /private or reserved/);
    }
  });

  it('refuses a name that resolves to a forbidden address (any of several)', async () => {
    await expect422(assertWebhookUrlAllowed('https://evil.example/x', { allowPrivate: false, resolve: async () => ['127.0.0.1'] }), /127\.0\.0\.1/);
    await expect422(assertWebhookUrlAllowed('https://evil.example/x', { allowPrivate: false, resolve: async () => ['8.8.8.8', '10.0.0.1'] }), /10\.0\.0\.1/);
    await expect422(assertWebhookUrlAllowed('https://localhost/x', { allowPrivate: false }), /private or reserved/);
  });

  it('refuses a name that does not resolve', async () => {
    const enotfound = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect422(assertWebhookUrlAllowed('https://nowhere.example/x', { allowPrivate: false, resolve: enotfound }), /does not resolve/);
    await expect422(assertWebhookUrlAllowed('https://nowhere.example/x', { allowPrivate: false, resolve: async () => [] }), /does not resolve/);
    await expect422(assertWebhookUrlAllowed('https://name.invalid/x', { allowPrivate: false }), /does not resolve/);
  });

  it('with allowPrivate allows https://127.0.0.1 but still refuses http:// and credentials', async () => {
    await expect(assertWebhookUrlAllowed('https://127.0.0.1:8443/hook', { allowPrivate: true })).resolves.toBeUndefined();
    await expect(assertWebhookUrlAllowed('https://localhost/hook', { allowPrivate: true })).resolves.toBeUndefined();
    await expect422(assertWebhookUrlAllowed('http://127.0.0.1:8443/hook', { allowPrivate: true }), /https/);
    await expect422(assertWebhookUrlAllowed('https://a:b@127.0.0.1/hook', { allowPrivate: true }), /credentials/);
  });
});

function lookupAll(fn: ReturnType<typeof guardedLookup>, host: string) {
  return new Promise<{ err: NodeJS.ErrnoException | null; addresses: LookupAddress[] }>((resolve) =>
    fn(host, { all: true }, (err, addresses) => resolve({ err, addresses: addresses as LookupAddress[] })),
  );
}
function lookupOne(fn: ReturnType<typeof guardedLookup>, host: string, family?: number) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string; family?: number }>((resolve) =>
    fn(host, family ? { family } : {}, (err, address, fam) => resolve({ err, address: address as string, family: fam })),
  );
}

describe('guardedLookup', () => {
  let receiver: HttpsReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('answers in both the all:true and the single-address forms', async () => {
    const resolve = async () => ['93.184.216.34', '2606:4700::1'];
    const all = await lookupAll(guardedLookup(false, resolve), 'public.example');
    expect(all.err).toBeNull();
    expect(all.addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
    const one = await lookupOne(guardedLookup(false, resolve), 'public.example');
    expect(one).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    const six = await lookupOne(guardedLookup(false, resolve), 'public.example', 6);
    expect(six).toEqual({ err: null, address: '2606:4700::1', family: 6 });
  });

  it('fails with ESSRF when any address is forbidden, in both forms', async () => {
    const resolve = async () => ['8.8.8.8', '::ffff:7f00:1'];
    const all = await lookupAll(guardedLookup(false, resolve), 'mixed.example');
    expect(all.err?.code).toBe('ESSRF');
    const one = await lookupOne(guardedLookup(false, resolve), 'mixed.example');
    expect(one.err?.code).toBe('ESSRF');
    expect(one.err).toBeInstanceOf(Error);
  });

  it('uses the system resolver by default (localhost → 127.0.0.1 refused, allowed with allowPrivate)', async () => {
    expect((await lookupAll(guardedLookup(false), 'localhost')).err?.code).toBe('ESSRF');
    const ok = await lookupAll(guardedLookup(true), 'localhost');
    expect(ok.err).toBeNull();
    expect(ok.addresses.length).toBeGreaterThan(0);
    expect((await lookupOne(guardedLookup(false), 'name.invalid')).err?.code).toBe('ENOTFOUND');
  });

  it('defeats DNS rebinding: the name passes registration, then resolves privately at connect and is refused', async () => {
    receiver = await startHttpsReceiver();
    let calls = 0;
    const rebinding = async () => (++calls === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    const url = `https://rebind.example:${receiver.port}/hook`;

    // Registration-time check sees the public answer.
    await expect(assertWebhookUrlAllowed(url, { allowPrivate: false, resolve: rebinding })).resolves.toBeUndefined();

    // Connect-time: the lookup used by the socket now gets 127.0.0.1 and refuses.
    const { cert } = await testCertificate();
    const err = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const req = https.request(url, { method: 'POST', agent: false, ca: cert, lookup: guardedLookup(false, rebinding) }, () => reject(new Error('connected')));
      req.on('error', resolve);
      req.end('{}');
    });
    expect(err.code).toBe('ESSRF');
    expect(err.message).toMatch(/127\.0\.0\.1/);
    expect(calls).toBe(2);
    expect(receiver.requests).toHaveLength(0);
  });

  it('lets the connection through when the connect-time address is allowed', async () => {
    receiver = await startHttpsReceiver();
    const { cert } = await testCertificate();
    const status = await new Promise<number>((resolve, reject) => {
      const req = https.request(`https://localhost:${receiver!.port}/hook`, { method: 'POST', agent: false, ca: cert, lookup: guardedLookup(true) }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(200);
    expect(receiver.requests).toHaveLength(1);
  });
});
