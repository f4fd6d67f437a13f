import { randomBytes } from 'node:crypto';

/** Type prefixes of api-surface.md: every id says what it names. */
export const ID_PREFIXES = {
  tenant: 'ten',
  user: 'usr',
  apiKey: 'key',
  client: 'cli',
  project: 'prj',
  task: 'tsk',
  point: 'pt',
  device: 'dev',
  data: 'dat',
  batch: 'bat',
  report: 'rpt',
  template: 'tpl',
  webhook: 'whk',
  event: 'evt',
  delivery: 'del',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 20;

/** A random body in base36; 20 characters carry ~103 bits. */
export function randomToken(length: number, alphabet = ALPHABET): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < limit) out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
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
