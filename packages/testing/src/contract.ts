import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

// Contract tests (issue 16): every answer the gateway gives a test is checked against the OpenAPI
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
    if (html || !documented.content?.['application/json']) return out;
    const schema = ['paths', template!, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema'];
    out.push(...this.check(schema, body));
    return out;
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
