import type { Context } from 'koa';
import { z } from 'zod';
import { DomainError } from '@mp/errors';
import { integer, MAX_VERSION } from '../bounds.js';
import { ok } from '../envelope.js';

/** `version` in a write body (docs/rules.md#optimistic-concurrency). */
export const versionField = integer(1, MAX_VERSION).optional();

/** The body of a DELETE of a versioned resource: at most the version it is based on. */
export const versionBody = z.object({ version: versionField });

/**
 * The version a write is based on: the body's `version` or the If-Match header (`"3"`, `W/"3"` or
 * `3`, the ETag this API sends). Both given and disagreeing is 422204; neither, no check.
 */
export function expectedVersion(ctx: Context, bodyVersion: number | undefined): { expectedVersion?: number } {
  const header = ctx.get('if-match');
  let fromHeader: number | undefined;
  if (header) {
    const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
    if (!m)
      throw new DomainError('400004', {
        field: 'If-Match',
        detail: 'If-Match must carry the resource version, e.g. "3".',
        suggestion: 'Send the ETag (or version) from the last GET unchanged.',
      });
    fromHeader = Number(m[1]);
  }
  if (fromHeader !== undefined && bodyVersion !== undefined && fromHeader !== bodyVersion) {
    throw new DomainError('422204', {
      field: 'version',
      detail: `The body says version ${bodyVersion} but If-Match says ${fromHeader}.`,
      suggestion: 'Send the version once, or the same in both.',
    });
  }
  const v = bodyVersion ?? fromHeader;
  return v !== undefined ? { expectedVersion: v } : {};
}

/** Answers with one versioned resource and its version as a strong ETag (for If-Match). */
export function okVersioned(ctx: Context, data: { version: number }): void {
  ctx.set('ETag', `"${data.version}"`);
  ok(ctx, data);
}

/** The names of the body fields sent as null, mapped to the service's `clear` list. */
export function nulls(body: Record<string, unknown>, fields: readonly string[]): string[] {
  return fields.filter((f) => body[f] === null);
}

/** Query-string booleans: `true` or `false`. */
export const queryBoolean = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === 'true'));

/** Drops undefined properties, so optional proto fields stay unset. */
export function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], undefined | null> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as never;
}
