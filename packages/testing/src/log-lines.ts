import { Writable } from 'node:stream';

/**
 * Parses one log line as strict JSON: unlike JSON.parse, a key repeated in one object is an error
 * (some log pipelines reject such lines, and JSON.parse would silently keep the last value).
 */
export function parseStrictJson(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at ${i} in ${text.slice(0, 300)}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (text[i] !== '"') fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') return (i++, obj);
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const key = str();
        if (seen.has(key)) fail(`duplicate key "${key}"`);
        seen.add(key);
        ws();
        if (text[i++] !== ':') fail('expected :');
        obj[key] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return (i++, obj);
        else fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') return (i++, arr);
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return (i++, arr);
        else fail('expected , or ]');
      }
    }
    if (c === '"') return str();
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i));
    if (!m) fail('unexpected token');
    i += m![0].length;
    return JSON.parse(m![0]);
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing text');
  return v;
}

/** A pino destination that keeps every line written to it, for tests that read the logs back. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  private partial = '';

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    const parts = (this.partial + chunk.toString()).split('\n');
    this.partial = parts.pop()!;
    this.lines.push(...parts.filter((l) => l.length > 0));
    done();
  }

  /** Every line parsed strictly (throws on a line that is not JSON or repeats a key). */
  records(): Record<string, unknown>[] {
    return this.lines.map((l) => parseStrictJson(l) as Record<string, unknown>);
  }
}
