import { Redis } from 'ioredis';
import { randomToken } from '@mp/kit';
import { RateLimits, rateLimitError, rateLimitHeaders } from '@mp/ratelimit';

const REDIS = process.env.MP_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limits on real Redis', () => {
  const prefix = `mpt:rl:${randomToken(8)}`;
  let a: RateLimits;
  let b: RateLimits;

  beforeAll(async () => {
    // Two gateway replicas with one store.
    a = new RateLimits({ redisUrl: REDIS, prefix, limits: { api: { points: 5 } } });
    b = new RateLimits({ redisUrl: REDIS, prefix, limits: { api: { points: 5 } } });
    expect(await a.ready()).toBe(true);
    expect(await b.ready()).toBe(true);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('shares one limit between replicas and refuses the request over it', async () => {
    const verdicts = [];
    for (let i = 0; i < 6; i++) verdicts.push(await (i % 2 ? b : a).consume('api', 'ten_x:live'));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, true, true, false]);
    expect(verdicts.map((v) => v.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    const refused = verdicts[5]!;
    expect(refused.retryAfter).toBeGreaterThan(0);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
    const headers = rateLimitHeaders(refused);
    expect(headers).toMatchObject({ 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '0', 'Retry-After': String(refused.retryAfter) });
    expect(Number(headers['X-RateLimit-Reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    const err = rateLimitError(refused);
    expect(err.code).toBe('429001');
    expect(err.headers['Retry-After']).toBe(String(refused.retryAfter));
  });

  it('counts per key: another tenant is not affected', async () => {
    expect((await a.consume('api', 'ten_y:live')).allowed).toBe(true);
  });

  it('counts records, and gives back the points of a refused request', async () => {
    const key = 'ten_z:live';
    expect((await a.consume('data_records', key, 400, 500)).allowed).toBe(true);
    const over = await b.consume('data_records', key, 200, 500);
    expect(over.allowed).toBe(false);
    expect(over.remaining).toBe(100);
    expect(rateLimitError(over).code).toBe('429002');
    // The refusal did not use up the remaining 100.
    expect((await a.consume('data_records', key, 100, 500)).allowed).toBe(true);
  });

  it('holds concurrent slots across replicas and frees them on release', async () => {
    const key = `conc-${randomToken(6)}`;
    const s1 = await a.acquire(key, 2);
    const s2 = await b.acquire(key, 2);
    const s3 = await a.acquire(key, 2);
    expect([s1.allowed, s2.allowed, s3.allowed]).toEqual([true, true, false]);
    await s1.release();
    const s4 = await b.acquire(key, 2);
    expect(s4.allowed).toBe(true);
    await s2.release();
    await s4.release();
  });

  it('counts in Redis exactly the slots held, with a TTL: refusals, all sent at once, leave nothing behind', async () => {
    const key = `conc-${randomToken(6)}`;
    const redisKey = `${prefix}:conc:${key}`;
    const store = new Redis(REDIS);
    try {
      // Issued together, so they travel in one pipeline as concurrent requests' commands do.
      const slots = await Promise.all([a.acquire(key, 2), b.acquire(key, 2), a.acquire(key, 2), b.acquire(key, 2), a.acquire(key, 2)]);
      expect(slots.filter((s) => s.allowed)).toHaveLength(2);
      expect(slots.filter((s) => !s.allowed).map((s) => s.inFlight)).toEqual([2, 2, 2]);
      expect(await store.get(redisKey)).toBe('2');
      const ttl = await store.ttl(redisKey);
      expect(ttl).toBeGreaterThan(100);
      expect(ttl).toBeLessThanOrEqual(120);
      await Promise.all(slots.map((s) => s.release()));
      expect(await store.get(redisKey)).toBe('0');
      expect((await a.acquire(key, 2)).inFlight).toBe(1);
    } finally {
      store.disconnect();
    }
  });
});

describe('rate limits when Redis is unreachable', () => {
  it('keeps limiting in the process instead of failing open or refusing everything', async () => {
    const errors: unknown[] = [];
    // Nothing listens on port 1: every Redis call fails at once.
    const l = new RateLimits({ redisUrl: 'redis://127.0.0.1:1', prefix: 'down', limits: { auth: { points: 3 } }, onRedisError: (e) => errors.push(e) });
    try {
      expect(await l.ready(300)).toBe(false);
      const verdicts = [];
      for (let i = 0; i < 4; i++) verdicts.push((await l.consume('auth', '127.0.0.1:live')).allowed);
      expect(verdicts).toEqual([true, true, true, false]);
      const slot = await l.acquire('t', 1);
      expect(slot.allowed).toBe(true);
      expect((await l.acquire('t', 1)).allowed).toBe(false);
      await slot.release();
      expect((await l.acquire('t', 1)).allowed).toBe(true);
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await l.close();
    }
  });
});

describe('rate limits without Redis (embedded default)', () => {
  it('limits in memory with the same rules', async () => {
    const l = new RateLimits({ limits: { reports: { points: 2 } } });
    const v = [await l.consume('reports', 'k'), await l.consume('reports', 'k'), await l.consume('reports', 'k')];
    expect(v.map((x) => x.allowed)).toEqual([true, true, false]);
    expect(rateLimitError(v[2]!).code).toBe('429003');
    expect(v[2]!.retryAfter).toBeGreaterThan(60);
    await l.close();
  });
});

describe('report generations and plans on real Redis', () => {
  const prefix = `mpt:rl:${randomToken(8)}`;
  let a: RateLimits;
  let b: RateLimits;

  beforeAll(async () => {
    a = new RateLimits({ redisUrl: REDIS, prefix });
    b = new RateLimits({ redisUrl: REDIS, prefix });
    expect(await a.ready()).toBe(true);
    expect(await b.ready()).toBe(true);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('429003: report generations per hour, shared by replicas, with a Retry-After within the hour', async () => {
    const key = 'ten_reports:live';
    a.setPlan(key, { reports: 2 });
    b.setPlan(key, { reports: 2 });
    const v = [await a.consume('reports', key), await b.consume('reports', key), await a.consume('reports', key)];
    expect(v.map((x) => [x.allowed, x.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    const err = rateLimitError(v[2]!);
    expect(err.code).toBe('429003');
    expect(err.detail).toContain('2 report generations per hour');
    expect(Number(err.headers['Retry-After'])).toBeGreaterThan(3500);
    expect(Number(err.headers['Retry-After'])).toBeLessThanOrEqual(3600);
    expect(err.headers['X-RateLimit-Limit']).toBe('2');
  });

  it('takes a key plan limits (0 = the operator default) for every kind and for concurrency', async () => {
    const key = 'ten_plan:live';
    a.setPlan(key, { api: 3, data_records: 0, concurrency: 1 });
    expect(a.limitFor('api', key)).toBe(3);
    expect(a.limitFor('data_records', key)).toBe(500);
    expect(a.limitFor('api', 'ten_unknown:live')).toBe(100);
    expect(a.concurrencyFor(key)).toBe(1);
    expect((await a.consume('api', key)).limit).toBe(3);
    const slot = await a.acquire(key);
    expect(slot.allowed).toBe(true);
    expect((await a.acquire(key)).allowed).toBe(false);
    await slot.release();
  });
});

describe('rate limits when Redis goes down and comes back', () => {
  it('falls back to per-process counting while it is down and returns to the shared store by itself', async () => {
    const { spawn } = await import('node:child_process');
    const net = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as import('node:net').AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const startRedis = async () => {
      const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('Ready to accept connections')) resolve();
        });
        child.once('exit', () => reject(new Error(`redis-server exited: ${out}`)));
      });
      return child;
    };
    let redis = await startRedis();
    const l = new RateLimits({ redisUrl: `redis://127.0.0.1:${port}`, prefix: 'back', limits: { api: { points: 3 } }, onRedisError: () => undefined });
    try {
      expect(await l.ready()).toBe(true);
      expect((await l.consume('api', 'k')).remaining).toBe(2);
      redis.kill('SIGKILL');
      await new Promise((r) => redis.once('exit', r));
      // in-process counting with the same rule, from zero
      const down = [];
      for (let i = 0; i < 4; i++) down.push((await l.consume('api', 'k')).allowed);
      expect(down).toEqual([true, true, true, false]);

      redis = await startRedis();
      expect(await l.ready(15_000)).toBe(true);
      // counted in the (new, empty) shared store again
      expect((await l.consume('api', 'k')).remaining).toBe(2);
    } finally {
      await l.close();
      redis.kill('SIGKILL');
    }
  });
});
