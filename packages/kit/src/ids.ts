import { randomFillSync } from 'node:crypto';

/** Type prefixes (docs/rules.md#ids): every id says what it names. */
export const ID_PREFIXES = {
  tenant: 'ten',
  user: 'usr',
  apiKey: 'key',
  client: 'cli',
  project: 'prj',
  task: 'tsk',
  point: 'pt',
  calibration: 'cal',
  device: 'dev',
  data: 'dat',
  batch: 'bat',
  importProfile: 'ipf',
  import: 'imp',
  report: 'rpt',
  template: 'tpl',
  reportSchedule: 'rsc',
  webhook: 'whk',
  event: 'evt',
  delivery: 'del',
  alarm: 'alm',
  notificationRule: 'ntr',
  notification: 'ntf',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 20;

/**
 * Random bytes taken from a pool refilled 4 KB at a time from the CSPRNG (as Node does for
 * randomUUID): one call into OpenSSL per ~100 ids instead of one per id, which showed in the
 * profiles of services creating hundreds of ids a second. Bytes are handed out once.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

function randomByte(): number {
  if (poolOffset === POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** A random body in base36; 20 characters carry ~103 bits. */
export function randomToken(length: number, alphabet = ALPHABET): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < limit) out += alphabet[b % alphabet.length];
  }
  return out;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomToken(BODY_LENGTH)}`;
}

const ID_PATTERN = /^[a-z]{2,3}_[0-9a-z]{20}$/;

/** True when `value` has the shape of an id of the given kind (not whether it exists). */
export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(`${ID_PREFIXES[kind]}_`) && ID_PATTERN.test(value);
}
