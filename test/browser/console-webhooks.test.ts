import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { EVENT_TYPES } from '@mp/events';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '@mp/testing';
import { EVENT_GROUPS, rate } from '../../packages/console/src/events.js';
import { launchChromium } from '../support/browser.js';
import { LAPTOP, screenshot, signIn } from '../support/console.js';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

/** docs/rules.md#signatures: HMAC-SHA256 of "<timestamp>.<raw body>" with the webhook's secret. */
const signedBy = (secret: string, r: ReceivedRequest) =>
  r.headers['x-service-signature'] === `sha256=${createHmac('sha256', secret).update(`${r.headers['x-service-timestamp']}.${r.rawBody}`).digest('hex')}`;

// The webhooks pages in headless Chromium against the real platform and a real HTTPS receiver:
// create with events and retry policy, the secret shown once, a test event, the delivery and its
// attempts, resend, filters, secret rotation and pausing.
describe('console: webhooks', () => {
  let t: TestPlatform;
  let receiver: HttpsReceiver;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  let secret: string;
  let webhookId: string;

  beforeAll(async () => {
    t = await startTestPlatform({ MP_WEBHOOK_SOURCE_ADDRESSES: '203.0.113.7,2001:db8::/48' });
    admin = { authorization: `Bearer ${await t.login()}` };
    // The first request is refused (a 4xx is not retried: the delivery fails); the rest succeed.
    receiver = await startHttpsReceiver({ replies: [{ status: 400, body: 'not yet' }], fallback: { status: 200 } });
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
    await signIn(page, t);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.stop();
  });

  it('offers every event type the platform sends', () => {
    expect(EVENT_GROUPS.flatMap(([, events]) => events).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('lists the addresses deliveries come from, as the operator set them (GET /system/config)', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    const list = page.getByRole('list', { name: 'Source addresses' });
    await list.waitFor();
    expect(await list.getByRole('listitem').allTextContents()).toEqual(['203.0.113.7', '2001:db8::/48']);
    const config = await t.api('GET', '/system/config', { headers: admin });
    expect(config.body.data).toEqual({ environment: 'live', webhook_source_addresses: ['203.0.113.7', '2001:db8::/48'] });
    expectError(await t.api('GET', '/system/config', { headers: { 'x-api-key': await t.apiKey(['project:read']) } }), 401004);
  });

  it('creates a webhook with events and retry policy and shows its signing secret once', async () => {
    await page.getByLabel('Webhook name').fill('Site office');
    await page.getByLabel('Receiving URL (HTTPS)').fill(`${receiver.url}/hooks`);
    const events = page.getByRole('group', { name: 'Events' });
    await events.getByLabel('data.created').check();
    await events.getByLabel('project.created').check();
    await page.getByLabel('Maximum retries').fill('2');
    await page.getByLabel('First retry after (seconds)').fill('1');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const shown = page.getByLabel('Signing secret of the new webhook:');
    await shown.waitFor();
    secret = (await shown.textContent())!;
    expect(secret.length).toBeGreaterThanOrEqual(32);

    const row = page.getByRole('row', { name: /Site office/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      `${receiver.url}/hooks`,
      'data.created project.created',
      'active',
      'no finished deliveries in 24 h',
      expect.stringMatching(/ UTC$/),
    ]);
    const [stored] = (await t.api('GET', '/webhooks', { headers: admin })).body.data.items;
    expect(stored).toMatchObject({
      name: 'Site office',
      url: `${receiver.url}/hooks`,
      events: ['data.created', 'project.created'],
      retry_policy: { max_retries: 2, retry_interval: 1 },
      active: true,
    });
    webhookId = stored.id;
    await screenshot(page, '06-webhooks');
    await row.getByRole('link', { name: 'Site office' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook Site office' }).waitFor();
  });

  it('sends a test event, shows the failed delivery with its attempt, and resends it', async () => {
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page
      .getByRole('status')
      .getByText(/^Test event sent: delivery del_/)
      .waitFor();
    const [first] = await receiver.waitFor(1);
    expect(first!.json).toMatchObject({ event_type: 'webhook.test', webhook_id: webhookId });
    expect(signedBy(secret, first!)).toBe(true);

    const deliveries = page.getByRole('table', { name: 'Deliveries, newest first' });
    const row = deliveries.getByRole('row', { name: /webhook\.test/ });
    await row.getByText('failed', { exact: true }).waitFor();
    const [delivery] = (await t.api('GET', `/webhooks/${webhookId}/deliveries`, { headers: admin })).body.data.items;
    expect(delivery).toMatchObject({ status: 'failed', http_status: 400, event_id: first!.json.event_id });
    const deliveryId = delivery.delivery_id as string;
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('400');

    await row.getByRole('button', { name: `Attempts of ${deliveryId}` }).click();
    const attempts = page.getByRole('table', { name: 'Every attempt of this delivery' });
    await attempts.waitFor();
    expect(await attempts.getByRole('row').nth(1).getByRole('cell').nth(2).textContent()).toBe('400');

    await row.getByRole('button', { name: `Resend ${deliveryId}` }).click();
    await page.getByRole('status').getByText(`Delivery ${deliveryId} queued again.`).waitFor();
    await row.getByText('delivered', { exact: true }).waitFor();
    const [, second] = await receiver.waitFor(2);
    expect(second!.json.event_id).toBe(first!.json.event_id);
    expect(signedBy(secret, second!)).toBe(true);

    // The filters ask the API: no failed delivery is left, one delivered.
    await page.getByLabel('Delivery status').selectOption('failed');
    await page.getByText('No deliveries match.').waitFor();
    await page.getByLabel('Delivery status').selectOption('delivered');
    await deliveries.getByRole('row', { name: /webhook\.test/ }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Webhook Site office' }).waitFor();
    const { success_rate } = (await t.api('GET', `/webhooks/${webhookId}`, { headers: admin })).body.data;
    expect(await page.locator('dd', { hasText: rate(success_rate) }).count()).toBe(1);
    await screenshot(page, '07-webhook-detail');
  });

  it('rotates the secret (the new one shown once) and pauses deliveries', async () => {
    await page.getByLabel('Old secret keeps signing for').selectOption('0');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByLabel('New signing secret:');
    await shown.waitFor();
    const rotated = (await shown.textContent())!;
    expect(rotated).not.toBe(secret);

    await page.getByRole('button', { name: 'Send test event' }).click();
    const [, , third] = await receiver.waitFor(3);
    expect(signedBy(rotated, third!)).toBe(true);

    await page.getByRole('button', { name: 'Pause deliveries' }).click();
    await page.getByRole('button', { name: 'Resume deliveries' }).waitFor();
    expect((await t.api('GET', `/webhooks/${webhookId}`, { headers: admin })).body.data.active).toBe(false);
  });
});
