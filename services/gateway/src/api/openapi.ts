import { z } from 'zod';
import { catalogue } from '@mp/errors';
import { errorEnvelope, successMeta } from './resources.js';
import type { RouteSpec } from './route-spec.js';
import { webhooksSection } from './webhooks-section.js';

/** The version of the reference (docs/rules.md#base-path). */
export const API_DOCUMENT_VERSION = '3.2.0';

type Json = Record<string, unknown>;

/** The not-found code of each path parameter: a route naming it can answer that code. */
const NOT_FOUND: Record<string, string> = {
  project_id: '404001',
  task_id: '404002',
  point_id: '404003',
  data_id: '404004',
  report_id: '404005',
  template_id: '404006',
  user_id: '404007',
  device_id: '404008',
  webhook_id: '404009',
  key_id: '404010',
  delivery_id: '404011',
  client_id: '404012',
  batch_id: '404013',
  alarm_id: '404014',
  profile_id: '404030',
  import_id: '404031',
};

/** Parameters whose resource lives in a project: membership and tenant are checked (403001, 403003). */
const IN_PROJECT = new Set(['project_id', 'task_id', 'point_id', 'data_id', 'batch_id', 'alarm_id', 'report_id', 'profile_id', 'import_id']);

/** Query parameters whose values a service looks up (an unknown one is 422103). */
const ENUMERATED_QUERY = new Set(['status', 'priority', 'role', 'type', 'sensor_type']);

const RATE_LIMITS: Record<RouteSpec['rateLimit'], { codes: string[]; description: string }> = {
  tenant: { codes: ['429001', '429004'], description: 'Requests per minute per tenant and environment (429001) and concurrent requests (429004).' },
  authentication: { codes: ['429005'], description: 'Authentication requests per minute per client address (429005).' },
  none: { codes: [], description: 'Not rate limited.' },
};

const pathParameters = (path: string): string[] => [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);

/**
 * Every error code a route can answer: those that follow from how it is called (credentials,
 * limits, body, path and query) and those it declares. Sorted, so the document is stable.
 */
export function errorCodesOf(spec: RouteSpec): string[] {
  // Every request's Idempotency-Key, traceparent and query are checked before any route (request-input.ts): 400003, 400004.
  const codes = new Set<string>(['400003', '400004', '500001', '503002']);
  const params = pathParameters(spec.path);
  if (spec.auth !== 'none') ['401001', '401002', '401003', '401006'].forEach((c) => codes.add(c));
  // 403004: the environment (sandbox) or the route's feature is not in the tenant's plan; sign-ins too.
  if (spec.auth !== 'none' || spec.rateLimit === 'authentication') codes.add('403004');
  if (spec.permission || spec.anyPermission) codes.add('401004');
  RATE_LIMITS[spec.rateLimit].codes.forEach((c) => codes.add(c));
  if (spec.query) ['400001', '400003', '400004'].forEach((c) => codes.add(c));
  // Values the services check: an unknown status or kind (422103), a range whose end is not after its start (422204).
  const queryKeys = Object.keys((spec.query as { shape?: object } | undefined)?.shape ?? {});
  if (queryKeys.some((k) => ENUMERATED_QUERY.has(k))) codes.add('422103');
  if (queryKeys.includes('from') && queryKeys.includes('to')) codes.add('422204');
  // A filter naming a point the caller cannot see is that point's not-found code.
  if (queryKeys.includes('point_id')) codes.add(NOT_FOUND.point_id!);
  if (spec.rawBody) ['400002', '400005'].forEach((c) => codes.add(c));
  if (spec.body) ['400002', '400003', '400004', '400005', '422101', '422102', '422103'].forEach((c) => codes.add(c));
  // An id of another tenant is 403003 (data isolation).
  if (params.length) ['400003', '400004', '403003'].forEach((c) => codes.add(c));
  for (const p of params) {
    if (NOT_FOUND[p]) codes.add(NOT_FOUND[p]);
    // Inside a project: not a member (403001); a change by a read-only member (403002).
    if (IN_PROJECT.has(p)) codes.add('403001');
    if (IN_PROJECT.has(p) && spec.method !== 'get') codes.add('403002');
  }
  if (spec.idempotent) ['409006'].forEach((c) => codes.add(c));
  // If-Match: malformed (400004), stale (409004), disagreeing with the body's version (422204).
  if (takesIfMatch(spec)) ['400004', '409004', '422204'].forEach((c) => codes.add(c));
  for (const c of spec.errors ?? []) codes.add(c);
  for (const c of codes) if (!catalogue[c]) throw new Error(`${spec.method.toUpperCase()} ${spec.path}: ${c} is not in the error catalogue`);
  return [...codes].sort();
}

/** Whether a write honours If-Match: declared, or implied by a `version` field in its body. */
export function takesIfMatch(spec: RouteSpec): boolean {
  if (spec.ifMatch !== undefined) return spec.ifMatch;
  const shape = (spec.body as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape !== undefined && 'version' in shape;
}

/** Collects the named schemas (`.meta({ id })`) the operations use, once each. */
class SchemaCollector {
  readonly components: Record<string, Json> = {};

  /** JSON Schema 2020-12 of a zod schema; named sub-schemas become `#/components/schemas/…`. */
  convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    delete json.$schema;
    for (const [name, def] of Object.entries(defs)) this.components[name] = rewriteRefs(def) as Json;
    const id = (json as { id?: string }).id;
    // A top-level named schema comes back inline with its id; it too goes to the components.
    if (typeof id === 'string') {
      delete (json as { id?: string }).id;
      this.components[id] = rewriteRefs(json) as Json;
      return { $ref: `#/components/schemas/${id}` };
    }
    return rewriteRefs(json) as Json;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      // zod's `id` metadata (a string) names the component; a property called id is an object.
      if (k === 'id' && typeof v === 'string') continue;
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : rewriteRefs(v);
    }
    return out;
  }
  return value;
}

const operationId = (spec: RouteSpec) =>
  spec.method +
  spec.path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `By_${part.slice(1)}` : part))
    .join('_')
    .split(/[-_]/)
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : ''))
    .join('');

const HEADERS = {
  'X-Request-Id': { description: 'The request id, as meta.request_id.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'The limit in force.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests (or records) left in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the window resets.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before sending again.', schema: { type: 'integer' } },
  ETag: { description: "The document's sha256 (as files[].sha256), quoted.", schema: { type: 'string' } },
  'Content-Disposition': { description: 'attachment, with the file name.', schema: { type: 'string' } },
};
const header = (name: keyof typeof HEADERS) => ({ [name]: { $ref: `#/components/headers/${name}` } });
const RATE_LIMIT_HEADERS = { ...header('X-RateLimit-Limit'), ...header('X-RateLimit-Remaining'), ...header('X-RateLimit-Reset') };

/**
 * A browser page's refusals are pages too (naming the code and what to do); a request refused
 * before it reaches the page (its headers) still gets the JSON envelope.
 */
const ERROR_PAGE = { schema: { type: 'string', description: 'An HTML page naming the error code, what happened and what to do.' } };

function errorResponses(codes: string[], envelope: Json, html: boolean): Record<string, Json> {
  const byStatus = new Map<string, string[]>();
  for (const c of codes) byStatus.set(c.slice(0, 3), [...(byStatus.get(c.slice(0, 3)) ?? []), c]);
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort()) {
    out[status] = {
      description: list.map((c) => `${c} ${catalogue[c]!.message}`).join('; '),
      headers: {
        ...header('X-Request-Id'),
        ...(status === '429' ? { ...RATE_LIMIT_HEADERS, ...header('Retry-After') } : {}),
      },
      content: {
        ...(html ? { 'text/html': ERROR_PAGE } : {}),
        'application/json': {
          schema: { allOf: [envelope, { type: 'object', properties: { code: { enum: list.map(Number) } } }] },
        },
      },
    };
  }
  return out;
}

function successResponse(spec: RouteSpec, schemas: SchemaCollector): Record<string, Json> {
  const answer = spec.answer ?? 'envelope';
  const headers = {
    ...header('X-Request-Id'),
    ...(spec.rateLimit === 'tenant' ? RATE_LIMIT_HEADERS : {}),
  };
  if (answer === 'html') {
    return {
      '200': { description: 'The HTML page.', headers, content: { 'text/html': { schema: { type: 'string' } } } },
      '302': { description: 'Redirect to redirect_uri with code (or error) and state.', headers: { Location: { schema: { type: 'string' } } } },
    };
  }
  if (answer === 'file') {
    const bytes = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };
    return {
      '200': {
        description: `${spec.summary} The document itself, not an envelope; errors are envelopes.`,
        headers: { ...headers, ...header('ETag'), ...header('Content-Disposition') },
        content: { 'application/pdf': bytes, 'text/csv': bytes, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': bytes },
      },
      '304': { description: 'If-None-Match named the current ETag: the document is unchanged.', headers: { ...header('X-Request-Id'), ...header('ETag') } },
    };
  }
  const data = spec.response ? schemas.convert(spec.response, 'output') : { type: 'object' };
  const schema =
    answer === 'bare'
      ? data
      : {
          type: 'object',
          properties: { code: { const: 200 }, data, meta: { $ref: '#/components/schemas/SuccessMeta' } },
          required: ['code', 'data', 'meta'],
          additionalProperties: false,
        };
  return { '200': { description: spec.summary, headers, content: { 'application/json': { schema } } } };
}

function queryParameters(spec: RouteSpec, schemas: SchemaCollector): Json[] {
  if (!spec.query) return [];
  const json = schemas.convert(spec.query, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: (json.required ?? []).includes(name),
    schema,
  }));
}

const AUTH_TEXT: Record<RouteSpec['auth'], string> = {
  none: 'none',
  api_key: 'API key (X-API-Key)',
  api_key_or_bearer: 'API key or bearer token',
  api_key_or_user_bearer: "API key, or a user's bearer token (an OAuth application's token is refused)",
};

function operation(spec: RouteSpec, schemas: SchemaCollector): Json {
  const codes = errorCodesOf(spec);
  const limit = RATE_LIMITS[spec.rateLimit];
  // Paragraphs (blank lines between): the reference renders the description as Markdown.
  const lines = [
    spec.summary,
    `**Authentication:** ${spec.auth === 'none' ? 'none' : AUTH_TEXT[spec.auth]}` +
      (spec.permission
        ? `; permission \`${spec.permission}\`.`
        : spec.anyPermission
          ? `; any one of the permissions ${spec.anyPermission.map((p) => `\`${p}\``).join(', ')}.`
          : '.'),
    `**Rate limit:** ${limit.description}`,
  ];
  if (spec.idempotent) lines.push('**Idempotency-Key:** honoured; the same key and body within 24 h answers the first response, another body 409006.');
  if (spec.transitions) {
    const rows = Object.entries(spec.transitions.table).map(([from, to]) => `| ${from} | ${to.length ? to.join(', ') : '(final)'} |`);
    lines.push(`**Transitions of \`${spec.transitions.field}\`:**`, ['| From | To |', '|---|---|', ...rows].join('\n'));
  }
  const body = spec.body ? schemas.convert(spec.body, 'input') : undefined;
  const form = spec.form === true;
  return {
    operationId: operationId(spec),
    summary: spec.summary.replace(/\.$/, ''),
    description: lines.join('\n\n'),
    tags: [spec.tag],
    security: spec.auth === 'none' ? [] : spec.auth === 'api_key' ? [{ ApiKey: [] }] : [{ ApiKey: [] }, { Bearer: [] }],
    parameters: [
      ...pathParameters(spec.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string', maxLength: 64 } })),
      ...queryParameters(spec, schemas),
      ...(spec.idempotent ? [{ $ref: '#/components/parameters/Idempotency-Key' }] : []),
      ...(takesIfMatch(spec) ? [{ $ref: '#/components/parameters/If-Match' }] : []),
    ],
    ...(body
      ? {
          requestBody: {
            // A body none of whose fields is required may be left out (an empty change, a bare action).
            required: hasRequiredField(body, schemas.components),
            content: form
              ? { 'application/json': { schema: body }, 'application/x-www-form-urlencoded': { schema: body } }
              : { 'application/json': { schema: body } },
          },
        }
      : spec.rawBody
        ? {
            requestBody: {
              required: true,
              description: spec.rawBody.description,
              content: Object.fromEntries(spec.rawBody.contentTypes.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
            },
          }
        : {}),
    responses: {
      ...successResponse(spec, schemas),
      ...errorResponses(
        codes,
        spec.errorFields ? schemas.convert(errorEnvelope.extend(spec.errorFields.shape), 'output') : { $ref: '#/components/schemas/Error' },
        spec.answer === 'html',
      ),
    },
    'x-permission': spec.permission ?? null,
    ...(spec.anyPermission ? { 'x-any-permission': [...spec.anyPermission] } : {}),
    'x-rate-limit': spec.rateLimit,
    'x-error-codes': codes.map(Number),
    ...(spec.transitions ? { 'x-status-transitions': spec.transitions } : {}),
  };
}

/** Whether a body schema (inline or a component) names a field that must be sent. */
function hasRequiredField(schema: Json, components: Record<string, Json>): boolean {
  const ref = schema.$ref;
  const resolved = typeof ref === 'string' ? (components[ref.replace('#/components/schemas/', '')] ?? {}) : schema;
  return ((resolved.required as string[] | undefined) ?? []).length > 0;
}

/** `/projects/:project_id` → `/projects/{project_id}`. */
export const openApiPath = (path: string) => path.replace(/:([a-z_]+)/g, '{$1}');

/**
 * The OpenAPI 3.1 document of the routes, generated and never written by hand. Paths are relative
 * to the server URL `/v3` (docs/rules.md#base-path: every path lives under /v3).
 */
export function openApiDocument(routes: readonly RouteSpec[]): Json {
  const schemas = new SchemaCollector();
  const paths: Record<string, Record<string, Json>> = {};
  const sorted = [...routes].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)));
  for (const spec of sorted) {
    const key = openApiPath(spec.path);
    (paths[key] ??= {})[spec.method] = operation(spec, schemas);
  }
  const events = webhooksSection((schema) => schemas.convert(schema, 'output'));
  Object.assign(schemas.components, events.components);
  schemas.convert(errorEnvelope, 'output');
  schemas.components.SuccessMeta = schemas.convert(successMeta, 'output');
  const components = Object.fromEntries(Object.entries(schemas.components).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    // The OpenAPI 3.1 dialect (JSON Schema 2020-12 with the OpenAPI vocabulary), the default of
    // the format; readers such as Swagger UI flag any other dialect as an error above the reference.
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Monitoring Platform API',
      version: API_DOCUMENT_VERSION,
      description:
        'JSON over HTTPS for monitoring projects, tasks, points, data, alarms and webhooks. Every success is `{ code: 200, data, meta }`; ' +
        "every refusal the error envelope with a six-digit code (see /docs/errors/{code}). Generated from the gateway's route table.",
    },
    servers: [{ url: '/v3', description: 'This deployment: the live base URL, or the sandbox one on its own port.' }],
    tags: [
      ...[...new Set(sorted.map((r) => r.tag))].map((name) => ({ name })),
      { name: 'Webhook events', description: 'What the platform POSTs to webhook URLs: the envelope, each event’s data, the headers and the signature rule.' },
    ],
    paths,
    webhooks: events.webhooks,
    components: {
      schemas: components,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key.' },
        Bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from POST /auth/login, /auth/refresh or /oauth/token.' },
      },
      parameters: {
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Up to 255 printable ASCII characters, e.g. a UUID (ADR 0012).',
          schema: { type: 'string', maxLength: 255 },
        },
        'If-Match': {
          name: 'If-Match',
          in: 'header',
          required: false,
          description:
            'The version the change is based on, as the ETag of the last read sends it ("3"; W/"3" and 3 are accepted). A different current version is 409004; a body `version` that disagrees is 422204. Without either, no check.',
          schema: { type: 'string', pattern: '^\\s*(W/)?"?[0-9]{1,9}"?\\s*$' },
        },
      },
      headers: HEADERS,
    },
  };
}
