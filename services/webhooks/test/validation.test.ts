import { DomainError } from '@mp/errors';
import { checkEvents, checkUrl, MAX_EVENTS, MAX_URL_LENGTH } from '../src/validation.js';

const refusal = async (fn: () => unknown) => {
  try {
    await fn();
  } catch (err) {
    const e = err as DomainError;
    return { code: e.code, field: e.field, detail: e.detail };
  }
  throw new Error('accepted');
};

describe('webhook input checks', () => {
  it('quotes at most a short excerpt of an unknown event type', async () => {
    const r = await refusal(() => checkEvents(['data.created', 'e'.repeat(1_000_000)]));
    expect({ code: r.code, field: r.field }).toEqual({ code: '422103', field: 'events[1]' });
    expect(r.detail.length).toBeLessThan(100);
  });

  it('bounds the event list and the URL (400003)', async () => {
    expect(await refusal(() => checkEvents(Array(MAX_EVENTS + 1).fill('data.created')))).toMatchObject({ code: '400003', field: 'events' });
    expect(checkEvents(Array(MAX_EVENTS).fill('data.created'))).toEqual(['data.created']);
    expect(await refusal(() => checkUrl(`https://hooks.example.com/${'u'.repeat(MAX_URL_LENGTH)}`, true))).toMatchObject({ code: '400003', field: 'url' });
  });
});
