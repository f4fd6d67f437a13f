import { createLogger, serviceLogger } from '@mp/kit';
import { LogCapture, parseStrictJson } from '@mp/testing';

describe('logs: one JSON object per line, every key once', () => {
  it('a service logger of the embedded platform names its service once, and keeps the parent level', () => {
    const out = new LogCapture();
    const platform = createLogger('platform', 'info', out);
    const webhooks = serviceLogger(platform, 'webhooks');
    webhooks.info({ event_id: 'evt_1' }, 'ingested');
    webhooks.debug('not at info');
    serviceLogger(webhooks, 'gateway').child({ request_id: 'req_1' }).warn('nested');
    platform.info('platform line');
    const records = out.records();
    expect(records.map((r) => [r.service, r.msg])).toEqual([
      ['webhooks', 'ingested'],
      ['gateway', 'nested'],
      ['platform', 'platform line'],
    ]);
    expect(records[1]!.request_id).toBe('req_1');
    // what pino wrote for a plain child (the bug): the same key twice, refused by the strict parser
    expect(() => parseStrictJson('{"service":"platform","service":"webhooks"}')).toThrow(/duplicate key "service"/);
  });

  it('a service logger still redacts secrets', () => {
    const out = new LogCapture();
    serviceLogger(createLogger('platform', 'info', out), 'identity').info({ password: 'hunter2', req: { headers: { authorization: 'Bearer x' } } }, 'sign-in');
    const [line] = out.lines;
    expect(line).not.toContain('hunter2');
    expect(line).not.toContain('Bearer x');
    expect(parseStrictJson(line!)).toMatchObject({ password: '[redacted]', service: 'identity' });
  });
});
