// Generates src/generated.ts (types and the route list of the SDK) from the committed OpenAPI
// document, docs/openapi.json. `npm run types -w @mp/sdk` rewrites it; test/types-drift.test.ts
// fails when the committed file differs from what this produces.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const name = (ref) => ref.replace('#/components/schemas/', '');
const key = (k) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));
const pad = (depth) => '  '.repeat(depth);

/** TypeScript for one JSON Schema (2020-12, as zod emits it). */
export function typeOf(schema, depth = 0) {
  if (!schema || Object.keys(schema).length === 0) return 'unknown';
  if (schema.$ref) return name(schema.$ref);
  if (schema.anyOf) return schema.anyOf.map((s) => typeOf(s, depth)).join(' | ');
  if (schema.oneOf) return schema.oneOf.map((s) => typeOf(s, depth)).join(' | ');
  if (schema.allOf) return schema.allOf.map((s) => typeOf(s, depth)).join(' & ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeOf({ ...schema, type }, depth)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(schema.items, depth)}>`;
    case 'object':
    case undefined: {
      const props = Object.entries(schema.properties ?? {});
      const extra = schema.additionalProperties;
      const required = new Set(schema.required ?? []);
      const lines = props.map(([k, v]) => `${pad(depth + 1)}${key(k)}${required.has(k) ? '' : '?'}: ${typeOf(v, depth + 1)};`);
      // An optional named property is `T | undefined`, which the index signature must admit.
      const someOptional = props.some(([k]) => !required.has(k));
      if (extra && extra !== false)
        lines.push(
          `${pad(depth + 1)}[key: string]: ${extra === true ? 'unknown' : typeOf(extra, depth + 1)}${extra !== true && someOptional ? ' | undefined' : ''};`,
        );
      if (!props.length && !lines.length) return schema.type === 'object' ? 'Record<string, unknown>' : 'unknown';
      return `{\n${lines.join('\n')}\n${pad(depth)}}`;
    }
    default:
      return 'unknown';
  }
}

/** The schema of `data` in a success envelope, or the whole body when the answer has no envelope. */
function successType(op, depth) {
  const schema = op.responses?.['200']?.content?.['application/json']?.schema;
  if (!schema) return null;
  const enveloped = schema.properties?.code?.const === 200 && schema.properties?.data;
  return typeOf(enveloped ? schema.properties.data : schema, depth);
}

function paramsType(op, where, depth) {
  const params = (op.parameters ?? []).filter((p) => p.in === where);
  if (!params.length) return 'Record<string, never>';
  return `{\n${params.map((p) => `${pad(depth + 1)}${key(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema, depth + 1)};`).join('\n')}\n${pad(depth)}}`;
}

export function generate(document) {
  const out = [
    '// Generated from docs/openapi.json by codegen/generate-types.mjs (npm run types -w @mp/sdk); do not edit.',
    `// API document version ${document.info.version}.`,
    '',
  ];
  for (const [id, schema] of Object.entries(document.components.schemas)) {
    out.push(`export type ${id} = ${typeOf(schema, 0)};`, '');
  }
  const codes = new Set();
  const routes = [];
  const meta = [];
  for (const [path, ops] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const c of op['x-error-codes'] ?? []) codes.add(c);
      const response = successType(op, 2);
      // Browser pages (the OAuth consent page) are not for an API client.
      if (response === null) continue;
      const route = `${method.toUpperCase()} ${path}`;
      const body = op.requestBody?.content?.['application/json']?.schema;
      const idempotent = (op.parameters ?? []).some((p) => p.$ref === '#/components/parameters/Idempotency-Key');
      routes.push(
        `  ${JSON.stringify(route)}: {\n    path: ${paramsType(op, 'path', 2)};\n    query: ${paramsType(op, 'query', 2)};\n    body: ${body ? typeOf(body, 2) : 'undefined'};\n    response: ${response};\n  };`,
      );
      const enveloped = op.responses['200'].content['application/json'].schema.properties?.code?.const === 200;
      meta.push(`  ${JSON.stringify(route)}: { idempotent: ${idempotent}, envelope: ${enveloped}, auth: ${op.security.length > 0} },`);
    }
  }
  const events = Object.entries(document.webhooks ?? {}).map(([type, entry]) => {
    const ref = entry.post.requestBody.content['application/json'].schema.$ref;
    return `  ${JSON.stringify(type)}: ${name(ref)};`;
  });
  out.push(
    '/** Each event type a webhook receives, and its envelope (`data` typed by the event catalogue). */',
    'export interface WebhookEvents {',
    ...events,
    '}',
    '',
  );
  out.push(`/** Every six-digit code the API can answer. */`, `export type ErrorCode = ${[...codes].sort().join(' | ')};`, '');
  out.push('/** Each route: its path and query parameters, request body and the `data` of its answer. */', 'export interface Routes {', ...routes, '}', '');
  out.push(
    '/** How the runtime treats each route: Idempotency-Key on creating writes, envelope or bare answer, credentials. */',
    'export const ROUTES: { readonly [K in keyof Routes]: { idempotent: boolean; envelope: boolean; auth: boolean } } = {',
    ...meta,
    '};',
    '',
  );
  return out.join('\n');
}

export const documentPath = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
export const generatedPath = fileURLToPath(new URL('../src/generated.ts', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(generatedPath, generate(JSON.parse(readFileSync(documentPath, 'utf8'))));
  console.log(`wrote ${generatedPath}`);
}
