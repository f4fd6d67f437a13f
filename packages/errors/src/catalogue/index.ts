import type { ErrorEntry } from '../types.js';
import { invalidRequestErrors } from './400-invalid-request.js';
import { authenticationErrors } from './401-authentication.js';
import { permissionErrors } from './403-permission.js';
import { notFoundErrors } from './404-not-found.js';
import { conflictErrors } from './409-conflict.js';
import { businessRuleErrors } from './422-business-rules.js';
import { rateLimitErrors } from './429-rate-limit.js';
import { serverErrors } from './5xx-server.js';

/*
 * The error catalogue: every six-digit code of the API (docs/rules.md#error-codes), including two extras (ADR 0004):
 *   409006  idempotency key reused with a different request (design: Idempotency-Key rule)
 *   502001  upstream service error (the 502 family has no listed codes of its own)
 *
 * `message` is the code's meaning and is used as the envelope's `message`.
 * `suggestion` is the default `data.suggestion` when the raising code gives none.
 * `GET /errors/{code}` returns an entry as the error detail record (docs/rules.md#error-codes).
 *
 * Examples are illustrative request shapes: `request` shows the failing call, `correct`
 * the corrected one. Placeholders in angle brackets stand for secrets.
 *
 * The entries live as data, one file per family (the code's first three digits are its HTTP
 * status); this module only assembles them, so a new code is one entry in its family's file.
 */

/** One family file: the HTTP statuses its codes may start with, and its entries. */
export interface CatalogueFamily {
  file: string;
  statuses: readonly string[];
  entries: readonly ErrorEntry[];
}

export const catalogueFamilies: readonly CatalogueFamily[] = [
  { file: '400-invalid-request', statuses: ['400'], entries: invalidRequestErrors },
  { file: '401-authentication', statuses: ['401'], entries: authenticationErrors },
  { file: '403-permission', statuses: ['403'], entries: permissionErrors },
  { file: '404-not-found', statuses: ['404'], entries: notFoundErrors },
  { file: '409-conflict', statuses: ['409'], entries: conflictErrors },
  { file: '422-business-rules', statuses: ['422'], entries: businessRuleErrors },
  { file: '429-rate-limit', statuses: ['429'], entries: rateLimitErrors },
  { file: '5xx-server', statuses: ['500', '502', '503'], entries: serverErrors },
];

/**
 * Keys the families' entries by code. Throws when a code appears twice or sits in a family
 * its status does not belong to, so a misplaced entry fails at module load, not at request time.
 * Six-digit keys are array indices to JavaScript, so the object lists them in ascending order
 * whatever the order of the families.
 */
export function assembleCatalogue(families: readonly CatalogueFamily[]): Record<string, ErrorEntry> {
  const all: Record<string, ErrorEntry> = {};
  for (const family of families) {
    for (const entry of family.entries) {
      if (!family.statuses.includes(entry.code.slice(0, 3))) {
        throw new Error(`error catalogue: code ${entry.code} does not belong in family ${family.file} (${family.statuses.join(', ')})`);
      }
      if (all[entry.code]) throw new Error(`error catalogue: code ${entry.code} appears twice`);
      all[entry.code] = entry;
    }
  }
  return all;
}

export const catalogue: Record<string, ErrorEntry> = assembleCatalogue(catalogueFamilies);

export const errorCodes: string[] = Object.keys(catalogue);
