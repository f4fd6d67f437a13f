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

const reader = { permissions: ['system:admin', 'data:read'] };

describe('webhook input checks', () => {
  it('quotes at most a short excerpt of an unknown event type', async () => {
    const r = await refusal(() => checkEvents(['data.created', 'e'.repeat(1_000_000)], reader));
    expect({ code: r.code, field: r.field }).toEqual({ code: '422103', field: 'events[1]' });
    expect(r.detail.length).toBeLessThan(100);
  });

  it('bounds the event list and the URL (400003)', async () => {
    expect(await refusal(() => checkEvents(Array(MAX_EVENTS + 1).fill('data.created'), reader))).toMatchObject({ code: '400003', field: 'events' });
    expect(checkEvents(Array(MAX_EVENTS).fill('data.created'), reader)).toEqual(['data.created']);
    expect(await refusal(() => checkUrl(`https://hooks.example.com/${'u'.repeat(MAX_URL_LENGTH)}`, true))).toMatchObject({ code: '400003', field: 'url' });
  });

  it('needs what reading each event needs (401004 on the first one missing)', async () => {
    const r = await refusal(() => checkEvents(['data.created', 'alarm.cleared', 'task.created'], reader));
    expect({ code: r.code, field: r.field }).toEqual({ code: '401004', field: 'events[2]' });
    expect(r.detail).toContain('task:read');
    expect(await refusal(() => checkEvents(['alarm.cleared'], { permissions: ['system:admin'] }))).toMatchObject({ code: '401004', field: 'events[0]' });
  });
});
