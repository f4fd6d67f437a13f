import { z } from 'zod';
import { PERMISSIONS } from '@mp/contracts';

/**
 * The longest value each kind of request field may hold, in characters (docs/adr/0018). They
 * match what the services accept (a project name is 2–100 characters there), or — where a service
 * has no bound of its own, such as an id or an enumerated value it looks up — are generous for
 * any real value and still small enough that no value can make an answer, a log line or a gRPC
 * trailer large. A value over its bound is 400003 naming the field.
 */
export const MAX_LENGTH = {
  /** ids are a prefix and 20 characters (`prj_…`); room for any future kind */
  id: 64,
  /** a status, role, priority, type or other enumerated value */
  enumerated: 32,
  /** a date or ISO 8601 date-time */
  instant: 40,
  name: 100,
  /** project and point numbers, device serial numbers */
  number: 64,
  model: 100,
  description: 2000,
  remark: 500,
  phone: 40,
  username: 200,
  password: 1000,
  url: 2000,
  /** a permission identifier (`project:write`) or event type (`data.batch_completed`) */
  identifier: 64,
  /** a search term `q` */
  search: 100,
  /** a derived channel's expression (docs/instruments.md#derived-channels) */
  expression: 500,
  /** a unit (kPa, mm/m, µε) */
  unit: 16,
} as const;

/** The most entries of a list in a request body. */
export const MAX_ITEMS = {
  /** permissions of a key or user: each of the ten identifiers once */
  permissions: 10,
  /** event types of a webhook: each of them once, with room for repeats that are dropped */
  events: 50,
  /** projects a webhook is limited to (the webhooks service's bound too) */
  projectIds: 100,
  /** point ids of GET …/data/latest */
  pointIds: 500,
} as const;

/** A string of at most `max` characters. */
export const text = (max: number) => z.string().max(max);

/**
 * The name of a project or task: the service trims it and wants 2 to 100 characters. Stated for
 * the reference here (JSON Schema keywords in the metadata), checked by the service.
 */
export const entityNameText = () =>
  text(MAX_LENGTH.name).meta({ minLength: 2, description: '2 to 100 characters once leading and trailing spaces are trimmed.' });

/** An id in a body or query (the services check its prefix and shape). */
export const idText = () => text(MAX_LENGTH.id);

/** An enumerated value the service checks (status, role, priority, type). */
export const enumText = (values?: readonly string[]) =>
  // The service checks the value (422103); the reference lists the values it takes.
  values ? text(MAX_LENGTH.enumerated).meta({ enum: [...values] }) : text(MAX_LENGTH.enumerated);

/** A permission identifier (checked by identity, 422103), listed in the reference. */
export const permissionText = () => text(MAX_LENGTH.identifier).meta({ enum: [...PERMISSIONS] });

/** A date or date-time the service parses. */
export const instantText = () => text(MAX_LENGTH.instant);

/** An IANA time zone name the service checks against the time-zone database (422103). */
export const timeZoneText = () =>
  text(MAX_LENGTH.identifier).meta({
    description: 'An IANA time zone, e.g. "Asia/Shanghai", "Europe/Berlin" or "UTC" (not an offset).',
    example: 'Asia/Shanghai',
  });

/** The range of a protobuf int32, the type the services carry most counts and intervals in. */
export const INT32 = { min: -2_147_483_648, max: 2_147_483_647 } as const;

/** `version` of the resource a change is based on: the services keep it as int32. */
export const MAX_VERSION = INT32.max;

/**
 * A whole number from `min` to `max` in a JSON body: every integer the gateway accepts goes
 * through here, so that none reaches a service's int32 field fractional or too large (which the
 * encoder refused as a 502). Out of range and fractional are 400003 naming the field (validate.ts).
 * The bounds are checked before wholeness, so that 1e20 names `max`, not the largest safe integer.
 */
export const integer = (min: number, max: number) => z.number().min(min).max(max).int();

/** The same in a query string or header, whose values arrive as text. */
export const queryInteger = (min: number, max: number) => z.coerce.number().min(min).max(max).int();
