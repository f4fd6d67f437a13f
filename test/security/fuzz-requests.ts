import fc from 'fast-check';
import type { GatewayRoute } from '@mp/gateway';
import type { RawRequest } from './raw-https.js';

/** Valid material the mutations start from, so that many requests reach deep validation. */
export interface FuzzSeeds {
  /** A valid id (or value) for each path parameter name, e.g. project_id → prj_…. */
  params: Record<string, string>;
  /** A valid body per endpoint, keyed `METHOD /v3/path/:param`. */
  bodies: Record<string, unknown>;
  /** Plausible values of the query parameters the API knows. */
  query: Record<string, string>;
  apiKey: string;
  bearer: string;
}

/** One generated request and what was done to it (printed with a failure). */
export interface FuzzCase {
  route: GatewayRoute;
  request: RawRequest;
  mutations: string[];
}

// ------------------------------------------------------------------ values

const LONG_LENGTHS = [300, 5_000, 70_000];
const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0001\u001f\u007f',
  '\t\r\n',
  'é',
  '日本語',
  '😀',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\u202e',
  "'; DROP TABLE projects; --",
  '../../etc/passwd',
  '%00',
  '%',
  '{}',
  '[]',
  'null',
  'true',
  '-1',
  '0',
  '1e309',
  'NaN',
  'Infinity',
  '9007199254740993',
  '2026-02-30T25:61:00Z',
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  'pt_',
  'prj_00000000000000000000',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '\r\nX-Injected: 1',
  '__proto__',
];
/** Numbers JSON can only carry as text (beyond double range, or more digits than a double holds). */
const RAW_NUMBERS = ['1e400', '-1e400', '1e-400', '123456789012345678901234567890', '-0', '0.0000000000000000000000001'];
const SPECIAL_NUMBERS = [0, -1, 1, 1.5, -2147483649, 2147483648, 4294967296, 2 ** 53 + 2, -(2 ** 63), 1e21, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER];

/** Hostile strings; long ones up to the longest of `longLengths` characters. */
const hostileString = (longLengths: number[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
    { weight: 2, arbitrary: fc.constantFrom('\u0000', 'fuzz\u0000', 'Fuzz\u0000tunnel', '\u0000\u0001\u0002', 'name\u001b[31m', 'x\u0085\u2028y') },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...longLengths), fc.constantFrom('a', 'é', '\u0000', '😀', '%')).map(([n, c]) => c.repeat(n)) },
  );
export const nastyString = hostileString(LONG_LENGTHS);
// A request line and headers must stay within Node's 16 KB (larger heads are refused by the HTTP
// parser before the application; the protocol-level cases test that on their own).
const urlString = hostileString([300, 1_000]);
const headerString = hostileString([300, 4_000]);

/** A marker replaced by raw JSON text after serialisation (numbers and nesting JSON.stringify cannot write). */
const RAW = '\u0001raw:';
const rawJson = (text: string) => `${RAW}${text}\u0001`;
const deep = (depth: number, open: string, close: string) => rawJson(open.repeat(depth) + '1' + close.repeat(depth));

const nastyNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...SPECIAL_NUMBERS),
  fc.constantFrom(...RAW_NUMBERS).map(rawJson),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: nastyNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null, [], {}, [[]], [{}], { '': null }) },
  { weight: 1, arbitrary: fc.constantFrom(64, 1_000, 20_000).chain((d) => fc.constantFrom(deep(d, '[', ']'), deep(d, '{"a":', '}'))) },
  { weight: 1, arbitrary: fc.array(fc.oneof(nastyString, nastyNumber), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom(1_001, 5_000).map((n) => Array.from({ length: n }, (_, i) => i)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

// ------------------------------------------------------------------ bodies

type Path = Array<string | number>;

/** Every path inside a JSON value (objects' keys and arrays' indexes), the root included. */
function pathsOf(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...at, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...at, k]));
  return out;
}

function setAt(root: unknown, path: Path, update: (old: unknown) => unknown | typeof REMOVE): unknown {
  if (path.length === 0) return update(root);
  const [head, ...rest] = path;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  const next = setAt(copy[head!], rest, update);
  if (next === REMOVE) {
    if (Array.isArray(copy)) copy.splice(head as number, 1);
    else delete copy[head!];
  } else copy[head!] = next;
  return copy;
}
const REMOVE = Symbol('remove');

const bodyMutation = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: nastyValue }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('add' as const),
    pick: fc.nat(),
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra', '', 'id', 'tenant_id'), nastyString),
    value: nastyValue,
  }),
  fc.record({ kind: fc.constant('wrap' as const), pick: fc.nat() }),
);
type BodyMutation = typeof bodyMutation extends fc.Arbitrary<infer T> ? T : never;

function applyBodyMutation(body: unknown, m: BodyMutation): [unknown, string] {
  const paths = pathsOf(body);
  const path = paths[m.pick % paths.length]!;
  const where = path.length ? path.join('.') : '(root)';
  switch (m.kind) {
    case 'set':
      return [setAt(body, path, () => m.value), `body ${where} = ${preview(m.value)}`];
    case 'remove':
      return path.length ? [setAt(body, path, () => REMOVE), `body ${where} removed`] : [undefined, 'no body'];
    case 'add': {
      const objects = paths.filter((p) => {
        const v = p.reduce<any>((o, k) => o?.[k], body);
        return v && typeof v === 'object' && !Array.isArray(v);
      });
      if (!objects.length) return [body, 'nothing to add to'];
      const target = objects[m.pick % objects.length]!;
      const added = setAt(body, target, (o) => Object.defineProperty({ ...(o as object) }, m.key, { value: m.value, enumerable: true }));
      return [added, `body ${target.join('.') || '(root)'}[${preview(m.key)}] = ${preview(m.value)}`];
    }
    case 'wrap':
      return [setAt(body, path, (o) => [o]), `body ${where} wrapped in an array`];
  }
}

/** Mutations of the serialised body: broken JSON, invalid UTF-8, raw control bytes, other formats. */
const byteMutation = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.constantFrom('ff', 'c328', 'eda080', 'f8a1a1a1a1', 'c0af', '00', '1f', '7f', 'efbbbf', '5c', '22'),
  }),
  fc.record({
    kind: fc.constant('replace' as const),
    text: fc.constantFrom('', 'null', '[]', '[{}]', '"text"', '12', 'a=1&b=2', '{', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', '\ufeff{}', 'NaN'),
  }),
);
type ByteMutation = typeof byteMutation extends fc.Arbitrary<infer T> ? T : never;

function applyByteMutation(bytes: Buffer, m: ByteMutation): [Buffer, string] {
  switch (m.kind) {
    case 'truncate': {
      const at = bytes.length ? m.at % bytes.length : 0;
      return [bytes.subarray(0, at), `body bytes cut at ${at}`];
    }
    case 'insert': {
      const at = bytes.length ? m.at % (bytes.length + 1) : 0;
      return [Buffer.concat([bytes.subarray(0, at), Buffer.from(m.bytes, 'hex'), bytes.subarray(at)]), `bytes ${m.bytes} inserted at ${at}`];
    }
    case 'replace':
      return [Buffer.from(m.text), `body replaced by ${JSON.stringify(m.text)}`];
  }
}

function serialise(body: unknown): Buffer {
  const text = JSON.stringify(body) ?? '';
  // "\u0001raw:…\u0001" markers become the raw text they carry (JSON.stringify escapes \u0001 as "\\u0001").
  return Buffer.from(text.replace(/"\\u0001raw:(.*?)\\u0001"/g, (_, raw: string) => raw));
}

// ------------------------------------------------------------------ URL and headers

const QUERY_KEYS = [
  'limit',
  'cursor',
  'q',
  'from',
  'to',
  'status',
  'point_id',
  'buckets',
  'interval_seconds',
  'order',
  'disabled',
  'quality_flag',
  'event_type',
  'role',
  'type',
  'sensor_type',
  'device_id',
  'assignee_id',
  'priority',
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
];

/** Bytes of a URL component: percent-encoded (any byte, %00 included), raw high bytes, or broken escapes. */
const urlComponent = (value: string, how: 'encoded' | 'raw' | 'broken', onTheWire = false): Buffer => {
  const bytes = Buffer.from(value, 'utf8');
  if (how === 'encoded') return Buffer.from([...bytes].map((b) => '%' + b.toString(16).padStart(2, '0')).join(''));
  // Raw: printable ASCII as it is (/, .., ;, + …); bytes a request line cannot carry (controls,
  // space, non-ASCII) and the URL's own delimiters (#, ?, %, &) are still escaped. On the wire
  // (protocol-level cases), controls and non-ASCII bytes go raw too: only what would end the
  // request line (space, CR, LF) stays escaped.
  const escape = onTheWire
    ? (b: number) => b === 0x20 || b === 0x0d || b === 0x0a || b === 0x23 || b === 0x3f || b === 0x25 || b === 0x26
    : (b: number) => b <= 0x20 || b >= 0x7f || b === 0x23 || b === 0x3f || b === 0x25 || b === 0x26;
  const raw = Buffer.from([...bytes].flatMap((b) => (escape(b) ? [...Buffer.from('%' + b.toString(16).padStart(2, '0'))] : [b])));
  return how === 'raw' ? raw : Buffer.concat([raw, Buffer.from(['%', '%zz', '%c3%28', '%ff', '%e0%80%af', '%ed%a0%80'][bytes.length % 6]!)]);
};
const urlHow = fc.constantFrom('encoded' as const, 'raw' as const, 'broken' as const);

const paramChoice = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ kind: 'valid' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('other' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('nasty' as const), value: urlString, how: urlHow }) },
);

const queryEntry = fc.record({
  key: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: urlString }),
  value: fc.oneof(
    { weight: 2, arbitrary: fc.constant<string | null>(null) },
    { weight: 3, arbitrary: urlString },
    { weight: 1, arbitrary: fc.constantFrom('1', '0', '-1', '5000', '5001', '99999999999999999999', '1.5', 'asc', 'true', 'abc', '2026-01-01T00:00:00Z') },
  ),
  how: urlHow,
  repeat: fc.boolean(),
});

/** A header value as bytes HTTP allows (tab, printable ASCII, bytes 0x80-0xFF: UTF-8 goes raw). */
const httpHeaderBytes = (s: string): Buffer => Buffer.from([...Buffer.from(s, 'utf8')].map((b) => ((b < 0x20 && b !== 0x09) || b === 0x7f ? 0x3f : b)));
const headerValue = fc.oneof(
  headerString,
  fc.constantFrom(
    '"1"',
    'W/"1"',
    '1',
    '"99999999999999999999"',
    '"-1"',
    '*',
    '"1e3"',
    '"0"',
    '"4294967296"',
    '"2147483648"',
    '  "2"  ',
    'Bearer',
    'Basic Og==',
  ),
  fc.uint8Array({ minLength: 1, maxLength: 40 }).map((a) => Buffer.from(a).toString('latin1')),
);

const authChoice = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ kind: 'api_key' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'bearer' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'both' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrong_key' as const), tail: fc.string({ maxLength: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('garbage' as const), header: fc.constantFrom('authorization', 'x-api-key'), value: headerValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tampered_bearer' as const), at: fc.nat() }) },
);

const CONTENT_TYPES = [
  'text/plain',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  '',
  'multipart/form-data; boundary=x',
  'application/json, text/plain',
  'APPLICATION/JSON',
  'application/jsonx',
];

// ------------------------------------------------------------------ the request

/** Arbitrary malformed (and sometimes valid) requests over the given routes, built from the seeds. */
export function fuzzCases(routes: GatewayRoute[], seeds: FuzzSeeds): fc.Arbitrary<FuzzCase> {
  const paramNames = Object.keys(seeds.params);
  return fc
    .record({
      route: fc.constantFrom(...routes),
      params: fc.array(paramChoice, { minLength: 3, maxLength: 3 }),
      query: fc.array(queryEntry, { maxLength: 4 }),
      validQuery: fc.boolean(),
      bodyKind: fc.oneof(
        { weight: 1, arbitrary: fc.constant('seed' as const) },
        { weight: 6, arbitrary: fc.constant('mutated' as const) },
        { weight: 1, arbitrary: fc.constant('none' as const) },
        { weight: 1, arbitrary: fc.constant('value' as const) },
      ),
      bodyMutations: fc.array(bodyMutation, { minLength: 1, maxLength: 3 }),
      byteMutation: fc.option(byteMutation, { freq: 4 }),
      replacement: nastyValue,
      auth: authChoice,
      contentType: fc.option(fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerValue), { freq: 6 }),
      idempotencyKey: fc.option(headerValue, { freq: 3 }),
      ifMatch: fc.option(headerValue, { freq: 4 }),
      // About one request in 20 carries bytes HTTP forbids (controls in headers, raw non-ASCII in
      // the path) and may exceed the 16 KB head: Node's parser refuses those before the app.
      onTheWire: fc.nat({ max: 29 }).map((n) => n === 0),
      extraHeaders: fc.array(
        fc.tuple(fc.constantFrom('x-request-id', 'accept', 'accept-encoding', 'cookie', 'origin', 'x-forwarded-for', 'x-fuzz'), headerValue),
        { maxLength: 2 },
      ),
    })
    .map((g): FuzzCase => {
      const { route } = g;
      const mutations: string[] = g.onTheWire ? ['forbidden bytes kept on the wire'] : [];
      const headerBytes = g.onTheWire ? (v: string) => Buffer.from(v, 'utf8') : httpHeaderBytes;
      // A header value as sent: its bytes read as Latin-1 (UTF-8 shows as the bytes it is).
      const wirePreview = (v: string) => preview(headerBytes(v).toString('latin1'));
      // Path: each :param gets its valid seed, another resource's id or a hostile value.
      let paramIndex = 0;
      const segments = route.path.split('/').map((segment) => {
        if (!segment.startsWith(':')) return Buffer.from(segment);
        const name = segment.slice(1);
        const choice = g.params[paramIndex++ % g.params.length]!;
        const valid = seeds.params[name] ?? 'unknown';
        if (choice.kind === 'valid') return Buffer.from(valid);
        if (choice.kind === 'other') {
          const other = seeds.params[paramNames[choice.pick % paramNames.length]!]!;
          mutations.push(`${name} = ${other}`);
          return Buffer.from(encodeURIComponent(other));
        }
        mutations.push(`${name} = ${preview(choice.value)} (${choice.how})`);
        return urlComponent(choice.value, choice.how, g.onTheWire);
      });
      // Query: plausible values of the known keys, then hostile entries.
      const query: Buffer[] = [];
      if (g.validQuery && route.method === 'GET')
        for (const [k, v] of Object.entries(seeds.query))
          if (g.query.length % 2 === 0 || k === 'limit') query.push(Buffer.from(`${k}=${encodeURIComponent(v)}`));
      for (const q of g.query) {
        const entry =
          q.value === null
            ? urlComponent(q.key, q.how, g.onTheWire)
            : Buffer.concat([urlComponent(q.key, 'encoded'), Buffer.from('='), urlComponent(q.value, q.how, g.onTheWire)]);
        query.push(entry);
        if (q.repeat) query.push(entry);
        mutations.push(`query ${preview(q.key)}=${q.value === null ? '(no value)' : preview(q.value)} (${q.how}${q.repeat ? ', twice' : ''})`);
      }
      const target = Buffer.concat([
        Buffer.concat(segments.flatMap((s, i) => (i ? [Buffer.from('/'), s] : [s]))),
        ...(query.length ? [Buffer.from('?'), Buffer.concat(query.flatMap((q, i) => (i ? [Buffer.from('&'), q] : [q])))] : []),
      ]);

      // Body: the endpoint's valid body, mutated as a value and then possibly as bytes.
      const seed = seeds.bodies[`${route.method} ${route.path}`];
      const writes = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method);
      let body: Buffer | undefined;
      if (g.bodyKind === 'none' || (!writes && g.bodyKind !== 'value')) {
        if (writes) mutations.push('no body');
      } else if (g.bodyKind === 'value') {
        body = serialise(g.replacement);
        mutations.push(`body = ${preview(g.replacement)}`);
      } else {
        let value: unknown = seed ?? {};
        if (g.bodyKind === 'mutated')
          for (const m of g.bodyMutations) {
            const [next, what] = applyBodyMutation(value, m);
            value = next;
            mutations.push(what);
          }
        body = value === undefined ? undefined : serialise(value);
        if (body && g.byteMutation) {
          const [next, what] = applyByteMutation(body, g.byteMutation);
          body = next;
          mutations.push(what);
        }
      }

      const headers: Array<[string, Buffer]> = [];
      const key = Buffer.from(seeds.apiKey);
      const bearer = Buffer.from(`Bearer ${seeds.bearer}`);
      switch (g.auth.kind) {
        case 'api_key':
          headers.push(['X-API-Key', key]);
          break;
        case 'bearer':
          headers.push(['Authorization', bearer]);
          break;
        case 'both':
          headers.push(['X-API-Key', key], ['Authorization', bearer]);
          break;
        case 'wrong_key':
          headers.push(['X-API-Key', headerBytes(`mp_live_${g.auth.tail}`)]);
          break;
        case 'garbage':
          headers.push([g.auth.header === 'authorization' ? 'Authorization' : 'X-API-Key', headerBytes(g.auth.value)]);
          break;
        case 'tampered_bearer': {
          const token = [...seeds.bearer];
          const at = g.auth.at % token.length;
          token[at] = token[at] === 'A' ? 'B' : 'A';
          headers.push(['Authorization', Buffer.from(`Bearer ${token.join('')}`)]);
          break;
        }
      }
      if (g.auth.kind !== 'api_key' && g.auth.kind !== 'bearer')
        mutations.push(`auth: ${g.auth.kind}${'value' in g.auth ? ` ${g.auth.header}=${wirePreview(g.auth.value)}` : ''}`);
      if (body) headers.push(['Content-Type', headerBytes(g.contentType ?? 'application/json')]);
      if (body && g.contentType !== null) mutations.push(`Content-Type: ${wirePreview(g.contentType)}`);
      if (g.idempotencyKey !== null) {
        headers.push(['Idempotency-Key', headerBytes(g.idempotencyKey)]);
        mutations.push(`Idempotency-Key: ${wirePreview(g.idempotencyKey)}`);
      }
      if (g.ifMatch !== null) {
        headers.push(['If-Match', headerBytes(g.ifMatch)]);
        mutations.push(`If-Match: ${wirePreview(g.ifMatch)}`);
      }
      for (const [name, value] of g.extraHeaders) {
        headers.push([name, headerBytes(value)]);
        mutations.push(`${name}: ${wirePreview(value)}`);
      }
      const fitted = g.onTheWire ? { target, headers, cut: false } : fitHead(target, headers);
      if (fitted.cut) mutations.push(`request head cut to ${HEAD_BUDGET} bytes`);
      return { route, request: { method: route.method, target: fitted.target, headers: fitted.headers, ...(body ? { body } : {}) }, mutations };
    });
}

const HEAD_BUDGET = 15_000;

/**
 * Keeps the request line and headers under Node's 16 KB limit (a larger head never reaches the
 * application): the longest of the query and the header values is shortened until they fit.
 */
function fitHead(target: Buffer, headers: Array<[string, Buffer]>): { target: Buffer; headers: Array<[string, Buffer]>; cut: boolean } {
  const size = () => target.length + headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  let cut = false;
  for (let excess = size() - HEAD_BUDGET; excess > 0; excess = size() - HEAD_BUDGET) {
    cut = true;
    const longest = headers.reduce((best, h, i) => (h[1].length > (headers[best]?.[1].length ?? -1) ? i : best), -1);
    const queryAt = target.indexOf('?');
    const queryLength = queryAt < 0 ? 0 : target.length - queryAt;
    if (queryLength >= (headers[longest]?.[1].length ?? 0)) target = target.subarray(0, Math.max(queryAt, target.length - excess));
    else headers = headers.map((h, i) => (i === longest ? [h[0], h[1].subarray(0, Math.max(0, h[1].length - excess))] : h));
  }
  return { target, headers, cut };
}

/** A short, printable description of a generated value. */
export function preview(value: unknown): string {
  if (Array.isArray(value) && value.length > 20) return `[${value.length} items]`;
  const text =
    typeof value === 'string'
      ? JSON.stringify(value.length > 100 ? value.slice(0, 60) : value) + (value.length > 100 ? `… (${value.length} chars)` : '')
      : (JSON.stringify(value) ?? String(value));
  // Raw JSON carried by a marker (see serialise) shows as raw:<text>.
  if (typeof value === 'string') return text.replace(/\\u0001raw:(.*?)\\u0001/g, 'raw:$1');
  return text.length > 80 ? `${text.slice(0, 60)}… (${text.length} chars)` : text;
}
