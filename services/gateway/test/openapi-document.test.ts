import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gatewayRoutes } from '@mp/gateway';
import { currentOpenApiText } from '@mp/gateway/openapi';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '@mp/events';
import { DEVICE_TYPES, MEMBER_ROLES, PERMISSIONS, PROJECT_STATUSES, REPORT_FORMATS, REPORT_SECTIONS, SENSOR_TYPES, TASK_STATUSES } from '@mp/contracts';

// One source of truth: the document is generated from the route table, and the committed copy
// (docs/openapi.json) is what integrators and the SDK read. Regenerate it with
// `npm run build -w @mp/gateway && npm run openapi -w @mp/gateway`.
const committedPath = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

describe('OpenAPI document', () => {
  const routes = gatewayRoutes().filter((r) => r.path.startsWith('/v3/'));
  const document = JSON.parse(currentOpenApiText()) as { paths: Record<string, Record<string, { 'x-error-codes': number[] }>> };

  it('documents every route the gateway answers below /v3', () => {
    const undocumented = routes.filter((r) => !r.spec).map((r) => `${r.method} ${r.path}`);
    expect(undocumented).toEqual([]);
    const missing = routes
      .map((r) => ({ method: r.method.toLowerCase(), path: r.path.slice('/v3'.length).replace(/:([a-z_]+)/g, '{$1}') }))
      .filter((r) => !document.paths[r.path]?.[r.method])
      .map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    const operations = Object.values(document.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(operations).toBe(routes.length);
  });

  it('declares for each route the path its handler is mounted at', () => {
    for (const r of routes) expect(`/v3${r.spec!.path}`).toBe(r.path);
    for (const r of routes) expect(r.spec!.method.toUpperCase()).toBe(r.method);
  });

  it('matches the committed docs/openapi.json byte for byte', () => {
    // On a difference: rebuild the gateway and run `npm run openapi -w @mp/gateway`, then commit.
    expect(currentOpenApiText() === readFileSync(committedPath, 'utf8')).toBe(true);
  });

  it('lists the codes every route can answer, with the transition tables where a status changes', () => {
    expect(document.paths['/webhooks/{webhook_id}/deliveries']!.get!['x-error-codes']).toEqual(expect.arrayContaining([404009, 401001, 429001, 429004]));
    expect(document.paths['/projects/{project_id}/data']!.post!['x-error-codes']).toEqual(expect.arrayContaining([429002, 422303, 404001, 403001]));
    const status = document.paths['/tasks/{task_id}/status']!.put! as unknown as { 'x-status-transitions': { table: Record<string, string[]> } };
    expect(status['x-status-transitions'].table.pending).toEqual(['in_progress', 'cancelled']);
    expect(document.paths['/openapi.json']!.get!).toMatchObject({ security: [] });
  });

  type Op = {
    parameters: { name?: string; $ref?: string; required?: boolean }[];
    requestBody?: { required: boolean; content: Record<string, { schema: any }> };
    responses: Record<string, { content?: Record<string, unknown> }>;
    'x-error-codes': number[];
  };
  const doc = document as unknown as {
    paths: Record<string, Record<string, Op>>;
    webhooks: Record<string, { post: Op }>;
    components: { schemas: Record<string, any>; parameters: Record<string, unknown> };
  };
  const op = (method: string, path: string) => doc.paths[path]![method]!;

  it('describes every event a webhook receives: envelope, data from the event catalogue, headers and the signature rule', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES, TEST_EVENT_TYPE].sort());
    for (const [type, { post }] of Object.entries(doc.webhooks)) {
      const ref = post.requestBody!.content['application/json']!.schema.$ref as string;
      const envelope = doc.components.schemas[ref.replace('#/components/schemas/', '')];
      expect(envelope).toMatchObject({
        required: ['event_id', 'event_type', 'timestamp', 'webhook_id', 'data'],
        additionalProperties: false,
        properties: { event_type: { const: type }, data: { $ref: expect.stringMatching(/Payload$/) } },
      });
      const payload = doc.components.schemas[envelope.properties.data.$ref.replace('#/components/schemas/', '')];
      expect(payload).toMatchObject({ type: 'object', additionalProperties: false });
      expect(post.parameters.filter((p) => p.required).map((p) => p.name)).toEqual([
        'X-Service-Signature',
        'X-Service-Timestamp',
        'X-Service-Event-ID',
        'User-Agent',
      ]);
      expect((post as unknown as { description: string }).description).toMatch(/HMAC-SHA256.*raw request body.*constant time/s);
    }
    expect(doc.components.schemas.TaskStatusChangedPayload.required).toEqual(
      expect.arrayContaining(['task_id', 'previous_status', 'current_status', 'changed_by', 'changed_at', 'remark']),
    );
  });

  it('documents the HTML pages of the authorization endpoint, refusals included', () => {
    for (const method of ['get', 'post']) {
      const responses = op(method, '/oauth/authorize').responses;
      expect(Object.keys(responses['200']!.content!)).toEqual(['text/html']);
      for (const status of Object.keys(responses).filter((s) => Number(s) >= 400)) expect(Object.keys(responses[status]!.content!)).toContain('text/html');
    }
    expect(Object.keys(op('get', '/projects').responses['400']!.content!)).toEqual(['application/json']);
  });

  it('marks a body required only when it has a required field', () => {
    const bodies = Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((o) => (o.requestBody ? [o.requestBody] : [])));
    // A file body (a logger import's CSV) is always required and has no JSON schema.
    for (const body of bodies.filter((b) => b.content['application/json'])) {
      const schema = body.content['application/json']!.schema;
      const resolved = schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
      expect(body.required).toBe((resolved.required ?? []).length > 0);
    }
    expect(op('patch', '/projects/{project_id}').requestBody!.required).toBe(false);
    expect(op('post', '/alarms/{alarm_id}/acknowledge').requestBody!.required).toBe(false);
    expect(op('post', '/projects').requestBody!.required).toBe(true);
  });

  it('states If-Match where a write takes it, and the codes it and the filters can answer', () => {
    const ifMatch = { $ref: '#/components/parameters/If-Match' };
    for (const [method, path] of [
      ['put', '/tasks/{task_id}/status'],
      ['patch', '/projects/{project_id}'],
      ['delete', '/data/{data_id}'],
    ] as const) {
      expect(op(method, path).parameters).toContainEqual(ifMatch);
      expect(op(method, path)['x-error-codes']).toEqual(expect.arrayContaining([400004, 409004, 422204]));
    }
    expect(op('post', '/alarms/{alarm_id}/acknowledge').parameters).not.toContainEqual(ifMatch);
    expect(op('post', '/projects/{project_id}/tasks')['x-error-codes']).toEqual(expect.arrayContaining([422104, 422204]));
    expect(op('get', '/projects/{project_id}/data')['x-error-codes']).toContain(404003);
  });

  it('states the name length, the https rule and the event names', () => {
    const props = (method: string, path: string) => op(method, path).requestBody!.content['application/json']!.schema.properties;
    expect(props('post', '/projects').name).toMatchObject({ minLength: 2, maxLength: 100 });
    expect(props('patch', '/tasks/{task_id}').name).toMatchObject({ minLength: 2 });
    expect(props('post', '/webhooks').url).toMatchObject({ pattern: '^https://' });
    expect(props('put', '/webhooks/{webhook_id}').events.items.enum).toEqual([...EVENT_TYPES]);
  });

  it('lists the values of roles, device and sensor types, template sections and formats, permissions and statuses', () => {
    const props = (method: string, path: string) => op(method, path).requestBody!.content['application/json']!.schema.properties;
    expect(props('post', '/projects/{project_id}/members').role.enum).toEqual([...MEMBER_ROLES]);
    expect(props('post', '/devices').type.enum).toEqual([...DEVICE_TYPES]);
    expect(props('post', '/projects/{project_id}/points').sensor_type.enum).toEqual([...SENSOR_TYPES]);
    expect(props('post', '/templates').sections.items.enum).toEqual([...REPORT_SECTIONS]);
    expect(props('patch', '/templates/{template_id}').formats.items.enum).toEqual([...REPORT_FORMATS]);
    expect(props('post', '/api-keys').permissions.items.enum).toEqual([...PERMISSIONS]);
    expect(props('patch', '/users/{user_id}').permissions.items.enum).toEqual([...PERMISSIONS]);
    expect(props('put', '/tasks/{task_id}/status').status.enum).toEqual([...TASK_STATUSES]);
    expect(op('get', '/projects').parameters.find((p) => p.name === 'status')).toMatchObject({ schema: { enum: [...PROJECT_STATUSES] } });
  });
});
