import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { consoleUrl, LAPTOP, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// Logger file imports in the console (docs/imports.md): a profile made on the project page from the
// project's points, a file uploaded to it, the import's progress and its errors by row and column,
// and the readings read back through the API.
describe('console: logger file imports', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  let projectId: string;
  let piezoId: string;

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { authorization: `Bearer ${await t.login()}` };
    projectId = (await t.api('POST', '/projects', { headers: admin, body: { name: 'Tailings dam', number: 'TD-1', start_date: '2026-01-01' } })).body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: admin, body: { status: 'in_progress' } })).status).toBe(200);
    piezoId = (
      await t.api('POST', `/projects/${projectId}/points`, { headers: admin, body: { number: 'PZ-07', name: 'Toe piezometer', sensor_type: 'piezometer' } })
    ).body.data.id;
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
    await signIn(page, t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('creates a profile, uploads a CSV file to it and shows the import completed with its bad cell named by row and column', async () => {
    await page.goto(`${consoleUrl(t)}#/projects/${projectId}`);
    const profileForm = page.getByRole('form', { name: 'New import profile' });
    await profileForm.getByLabel('Profile name').fill('Toe logger');
    await profileForm.getByLabel('Time column').fill('time');
    await profileForm.getByLabel('Time zone').fill('Europe/Zurich');
    await profileForm.getByLabel('File column').fill('PZ07_kPa');
    await profileForm.getByLabel('Point').selectOption(piezoId);
    await profileForm.getByLabel('Channel').fill('pore_pressure');
    await profileForm.getByRole('button', { name: 'Add column' }).click();
    await profileForm.getByRole('button', { name: 'Create profile' }).click();
    await page.getByRole('table', { name: 'Import profiles' }).getByRole('rowheader', { name: 'Toe logger' }).waitFor();

    const upload = page.getByRole('form', { name: 'Upload a file' });
    await upload.getByLabel('Profile').selectOption({ label: 'Toe logger' });
    const file = ['time,PZ07_kPa', '2026-03-10 09:00:00,120.5', '2026-03-10 10:00:00,12x', '2026-03-10 11:00:00,121'].join('\n');
    await upload.getByLabel('Logger file').setInputFiles({ name: 'toe.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
    await upload.getByRole('button', { name: 'Import' }).click();
    const progress = page.locator('#import-progress');
    await progress.getByText('completed').waitFor();
    await progress.getByText('2 readings stored').waitFor();
    const errors = progress.getByRole('table', { name: /Errors \(1/ });
    await errors.getByRole('cell', { name: 'PZ07_kPa' }).waitFor();
    expect(await errors.getByRole('row').nth(1).getByRole('cell').first().textContent()).toBe('3');
    const records = (await t.api('GET', `/points/${piezoId}/data?order=asc`, { headers: admin })).body.data.items;
    expect(records.map((r: { measured_at: string }) => r.measured_at)).toEqual(['2026-03-10T09:00:00+01:00', '2026-03-10T11:00:00+01:00']);
  });

  it("saves a profile's time format, delimiter and decimal mark, and reads a file written that way", async () => {
    await page.goto(`${consoleUrl(t)}#/projects/${projectId}`);
    const profileForm = page.getByRole('form', { name: 'New import profile' });
    await profileForm.getByLabel('Profile name').fill('Swiss logger');
    await profileForm.getByLabel('Time column').fill('Zeit');
    await profileForm.getByLabel('Time zone').fill('Europe/Zurich');
    await profileForm.getByLabel('Time format').selectOption('DD.MM.YYYY HH:mm');
    await profileForm.getByLabel('Delimiter').fill(';');
    await profileForm.getByLabel('Decimal mark').selectOption(',');
    await profileForm.getByLabel('File column').fill('PZ07');
    await profileForm.getByLabel('Point').selectOption(piezoId);
    await profileForm.getByLabel('Channel').fill('pore_pressure');
    await profileForm.getByRole('button', { name: 'Add column' }).click();
    await profileForm.getByRole('button', { name: 'Create profile' }).click();
    const row = page.getByRole('table', { name: 'Import profiles' }).getByRole('row', { name: /Swiss logger/ });
    await row.getByText('delimiter ; · decimal comma').waitFor();
    const saved = (await t.api('GET', `/projects/${projectId}/import-profiles`, { headers: admin })).body.data.items.find(
      (p: { name: string }) => p.name === 'Swiss logger',
    );
    expect(saved).toMatchObject({ timestamp_column: 'Zeit', timestamp_format: 'DD.MM.YYYY HH:mm', time_zone: 'Europe/Zurich', delimiter: ';', decimal: ',' });

    const upload = page.getByRole('form', { name: 'Upload a file' });
    await upload.getByLabel('Profile').selectOption({ label: 'Swiss logger' });
    const file = ['Zeit;PZ07', '11.03.2026 09:00;130,25'].join('\n');
    await upload.getByLabel('Logger file').setInputFiles({ name: 'swiss.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
    await upload.getByRole('button', { name: 'Import' }).click();
    await page.locator('#import-progress').getByText('1 readings stored').waitFor();
    const records = (await t.api('GET', `/points/${piezoId}/data?order=asc&from=2026-03-11T00:00:00Z`, { headers: admin })).body.data.items;
    expect(records.map((r: { measured_at: string; values: Record<string, number> }) => [r.measured_at, r.values.pore_pressure])).toEqual([
      ['2026-03-11T09:00:00+01:00', 130.25],
    ]);
  });
});
