import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

// Contract tests (ADR 0033): every answer the gateway gives a test is checked against the OpenAPI
// document (docs/openapi.json, which the gateway's own test keeps equal to its route table):
// the status is one the operation documents, a success body matches its schema, an error is the
// envelope with a code the operation lists, and the documented headers (X-Request-Id,
// X-RateLimit-*, Retry-After) are there. httpsRequest calls this for every answer that carries
// X-Request-Id, so code and document cannot part without a test failing.

interface Operation {
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
  'x-error-codes'?: number[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post: { parameters: { name: string; required?: boolean }[] } }>;
}

const DOCUMENT_URL = new URL('../../../docs/openapi.json', import.meta.url);

class ContractChecker {
  private readonly document: Document;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  /** Path templates as patterns, literal ones first (as the router prefers /data/batches/… over /data/{id}). */
  private readonly templates: { template: string; pattern: RegExp }[];

  constructor() {
    this.document = JSON.parse(readFileSync(DOCUMENT_URL, 'utf8')) as Document;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, formats: { 'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/ } });
    this.ajv.addSchema(this.document as object, 'doc');
    this.templates = Object.keys(this.document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^/v3${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[a-z_]+\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  private validator(pointer: string[]): ValidateFunction {
    const ref = `doc#/${pointer.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
    let v = this.validators.get(ref);
    if (!v) this.validators.set(ref, (v = this.ajv.compile({ $ref: ref })));
    return v;
  }

  problems(method: string, url: string, status: number, headers: Record<string, string | string[] | undefined>, body: unknown): string[] {
    const path = new URL(url).pathname;
    const template = this.templates.find((t) => t.pattern.test(path))?.template;
    const op = template ? this.document.paths[template]![method.toLowerCase()] : undefined;
    const out: string[] = [];
    if (!headers['x-request-id']) out.push('no X-Request-Id header');
    const html = String(headers['content-type'] ?? '').startsWith('text/html');
    if (!op) {
      // Not an operation of the document (an unknown path or method, a /docs page): an error
      // answer must still be the envelope.
      if (status >= 400 && !html) out.push(...this.check(['components', 'schemas', 'Error'], body));
      return out;
    }
    const documented = op.responses[String(status)];
    if (!documented) {
      out.push(`HTTP ${status} is not a documented answer of ${method} ${template} (documented: ${Object.keys(op.responses).join(', ')})`);
      return out;
    }
    for (const name of Object.keys(documented.headers ?? {})) if (headers[name.toLowerCase()] === undefined) out.push(`header ${name} missing`);
    if (html) {
      if (!documented.content?.['text/html']) out.push(`HTTP ${status} answers an HTML page, which ${method} ${template} does not document for ${status}`);
      return out;
    }
    if (!documented.content?.['application/json']) return out;
    const schema = ['paths', template!, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema'];
    out.push(...this.check(schema, body));
    return out;
  }

  /**
   * A webhook delivery against the document's `webhooks` section (generated from the event
   * catalogue): a known event type, its envelope and data as documented, every documented
   * header, and the event id header naming the body's event.
   */
  deliveryProblems(headers: Record<string, string | string[] | undefined>, body: unknown): string[] {
    const type = (body as { event_type?: unknown } | null)?.event_type;
    const entry = typeof type === 'string' ? this.document.webhooks?.[type] : undefined;
    if (!entry) return [`event_type ${JSON.stringify(type)} is not in the webhooks section of docs/openapi.json`];
    const out: string[] = [];
    for (const p of entry.post.parameters) if (p.required && headers[p.name.toLowerCase()] === undefined) out.push(`header ${p.name} missing`);
    if (headers['x-service-event-id'] !== (body as { event_id?: unknown }).event_id) out.push('X-Service-Event-ID is not the body’s event_id');
    out.push(...this.check(['webhooks', type as string, 'post', 'requestBody', 'content', 'application/json', 'schema'], body));
    return out;
  }

  eventDataProblems(type: string, data: unknown): string[] {
    const ref = (this.document.webhooks?.[type]?.post as { requestBody?: { content: Record<string, { schema: { $ref: string } }> } } | undefined)?.requestBody
      ?.content['application/json']?.schema.$ref;
    if (!ref) return [`event_type ${JSON.stringify(type)} is not in the webhooks section of docs/openapi.json`];
    return this.check(['components', 'schemas', ref.replace('#/components/schemas/', ''), 'properties', 'data'], data);
  }

  private check(pointer: string[], body: unknown): string[] {
    const validate = this.validator(pointer);
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || 'body'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  }
}

let checker: ContractChecker | undefined;

/**
 * Throws when a gateway answer breaks the OpenAPI document. Only answers that carry X-Request-Id
 * (the gateway's) are checked; MP_CONTRACT_CHECK=off turns the check off for a debugging session.
 */
export function assertContract(
  method: string,
  url: string,
  res: { status: number; headers: Record<string, string | string[] | undefined>; body: unknown },
): void {
  if (process.env.MP_CONTRACT_CHECK === 'off' || res.headers['x-request-id'] === undefined) return;
  checker ??= new ContractChecker();
  const problems = checker.problems(method, url, res.status, res.headers, res.body);
  if (problems.length) {
    throw new Error(
      `The answer to ${method} ${new URL(url).pathname} (HTTP ${res.status}) breaks docs/openapi.json:\n  ${problems.join('\n  ')}\n${JSON.stringify(res.body)?.slice(0, 600)}`,
    );
  }
}

/**
 * The contract problems of a webhook delivery a test receiver got (empty when it keeps the
 * document); MP_CONTRACT_CHECK=off turns the check off for a debugging session.
 */
export function deliveryContractProblems(headers: Record<string, string | string[] | undefined>, body: unknown): string[] {
  if (process.env.MP_CONTRACT_CHECK === 'off') return [];
  checker ??= new ContractChecker();
  return checker.deliveryProblems(headers, body);
}

/**
 * The contract problems of an event's data as it travels on the stream (before any webhook
 * envelope): the `data` schema the document's `webhooks` section gives the event type.
 */
export function eventDataContractProblems(type: string, data: unknown): string[] {
  if (process.env.MP_CONTRACT_CHECK === 'off') return [];
  checker ??= new ContractChecker();
  return checker.eventDataProblems(type, data);
}
