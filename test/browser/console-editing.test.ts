import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { consoleUrl, LAPTOP, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// What changes every day, edited in the console and read back through the API: a point's
// thresholds, reference, trigger levels and alarm rules (a refused edit shows the API's message
// next to its field and stores nothing), a reading's quality flag and remark, a manual reading;
// times in the project's time zone; the min/max envelope of the chart.
describe('console: editing points and readings', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  let projectId: string;
  let prismId: string;
  let piezoId: string;
  /** The newest reading of HW-01 as a clock in Shanghai shows it. */
  let shanghai: string;
  const getPoint = async (id: string) => (await t.api('GET', `/points/${id}`, { headers: admin })).body.data;
  const openPoint = async (id: string, title: string) => {
    await page.goto(`${consoleUrl(t)}#/points/${id}`);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { authorization: `Bearer ${await t.login()}` };
    projectId = (
      await t.api('POST', '/projects', {
        headers: admin,
        body: { name: 'Harbour wall', number: 'HW-1', start_date: '2026-01-01', time_zone: 'Asia/Shanghai' },
      })
    ).body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: admin, body: { status: 'in_progress' } })).status).toBe(200);
    prismId = (
      await t.api('POST', `/projects/${projectId}/points`, {
        headers: admin,
        body: { number: 'HW-01', name: 'Wall 1', sensor_type: 'total_station', reference: { x: 100, y: 200, z: 5 }, thresholds: { warning: 5, alarm: 10 } },
      })
    ).body.data.id;
    piezoId = (
      await t.api('POST', `/projects/${projectId}/points`, {
        headers: admin,
        body: { number: 'PZ-01', name: 'Piezometer 1', sensor_type: 'piezometer' },
      })
    ).body.data.id;
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
    await signIn(page, t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('saves thresholds, reference and alarm rules of a geodetic point with its version', async () => {
    await openPoint(prismId, 'Point HW-01 · Wall 1');
    const before = await getPoint(prismId);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit point' });
    await form.getByLabel('Warning (mm)').fill('6');
    await form.getByLabel('Alarm (mm)').fill('12');
    await form.getByLabel('Reference z (m)').fill('5.25');
    await form.getByLabel('Stale factor').fill('4');
    const patch = page.waitForRequest((r) => r.method() === 'PATCH' && r.url().includes(`/v3/points/${prismId}`));
    await form.getByRole('button', { name: 'Save point' }).click();
    // Only what changed, with the version the form was filled from.
    expect((await patch).postDataJSON()).toEqual({
      version: before.version,
      thresholds: { warning: 6, alarm: 12 },
      reference: { x: 100, y: 200, z: 5.25 },
      alarm_rules: { stale_factor: 4 },
    });
    await page.getByText('warning at ±6 mm · alarm at ±12 mm').waitFor();
    const after = await getPoint(prismId);
    expect(after).toMatchObject({ thresholds: { warning: 6, alarm: 12 }, reference: { x: 100, y: 200, z: 5.25 }, alarm_rules: { stale_factor: 4 } });
    expect(after.version).toBeGreaterThan(before.version);
  });

  it('shows a refused edit next to its field and stores nothing', async () => {
    const before = await getPoint(prismId);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit point' });
    await form.getByLabel('Warning (mm)').fill('20');
    await form.getByRole('button', { name: 'Save point' }).click();
    // 422204 names thresholds.warning: the notice stands beside that input.
    const notice = form.locator('#error-thresholds-warning');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/\(422204\).*thresholds\.warning \(20 mm\) must be below thresholds\.alarm \(12 mm\)/);
    expect(await form.getByLabel('Warning (mm)').getAttribute('aria-invalid')).toBe('true');
    expect(await getPoint(prismId)).toEqual(before);

    // Someone else saves first: the form's version is stale and the API refuses it (409004).
    expect((await t.api('PATCH', `/points/${prismId}`, { headers: admin, body: { description: 'Checked' } })).status).toBe(200);
    await form.getByLabel('Warning (mm)').fill('7');
    await form.getByRole('button', { name: 'Save point' }).click();
    await form
      .getByRole('alert')
      .getByText(/\(409004\)/)
      .waitFor();
    expect((await getPoint(prismId)).thresholds).toEqual({ warning: 6, alarm: 12 });
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('saves the trigger levels of an instrument point on its channels', async () => {
    await openPoint(piezoId, 'Point PZ-01 · Piezometer 1');
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit point' });
    expect(await form.getByLabel('Warning (mm)').count()).toBe(0);
    await form.getByRole('button', { name: 'Add a trigger level' }).click();
    const level = form.getByRole('group', { name: 'Trigger level 1' });
    expect(await level.getByLabel('Channel').inputValue()).toBe('pore_pressure');
    await level.getByLabel('Above').fill('300');
    await level.getByLabel('Below').fill('400');
    await form.getByRole('button', { name: 'Save point' }).click();
    await level
      .locator('#error-trigger_levels-0-below')
      .getByText(/below \(400\) must be less than above \(300\)/)
      .waitFor();
    expect((await getPoint(piezoId)).trigger_levels).toEqual([]);

    await level.getByLabel('Below').fill('');
    await level.getByLabel('Level').selectOption('alarm');
    await form.getByRole('button', { name: 'Save point' }).click();
    await page.getByText('trigger levels: alarm pore_pressure above 300').waitFor();
    expect((await getPoint(piezoId)).trigger_levels).toEqual([{ level: 'alarm', channel: 'pore_pressure', above: 300, below: null }]);
  });

  it("adds a dated calibration to a piezometer on the project's clock; a refused one stores nothing", async () => {
    await openPoint(piezoId, 'Point PZ-01 · Piezometer 1');
    const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Calibrations' }) });
    await card.getByText('No calibration yet').waitFor();
    const form = page.getByRole('form', { name: 'Add a calibration' });
    await form.getByLabel('Gauge factor G (per digit)').fill('-0.25');
    await form.getByLabel('Zero reading R₀ (digits)').fill('not a number');
    await form.getByLabel('Valid from (Asia/Shanghai)').fill('2026-03-01T08:00:00');
    await form.getByRole('button', { name: 'Add calibration' }).click();
    await form.getByRole('alert').first().waitFor();
    expect((await t.api('GET', `/points/${piezoId}/calibrations`, { headers: admin })).body.data.items).toEqual([]);

    await form.getByLabel('Zero reading R₀ (digits)').fill('8000');
    const post = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes(`/v3/points/${piezoId}/calibrations`));
    await form.getByRole('button', { name: 'Add calibration' }).click();
    // 08:00 in Shanghai is 00:00 UTC.
    expect((await post).postDataJSON()).toEqual({ method: 'vibrating_wire', gauge_factor: -0.25, zero_reading: 8000, valid_from: '2026-03-01T00:00:00.000Z' });
    const row = card
      .getByRole('table', { name: 'Calibrations of this point, newest first, times in Asia/Shanghai' })
      .getByRole('row', { name: /^2026-03-01 08:00:00 Asia\/Shanghai/ });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('gauge_factor -0.25 · zero_reading 8000');
    // A reading of the frequency alone is converted: 2700 Hz → 7290 digits → −0.25 · (7290 − 8000) = 177.5 kPa.
    const written = await t.api('POST', `/projects/${projectId}/data`, {
      headers: admin,
      body: { records: [{ point_id: piezoId, measured_at: '2026-03-02T00:00:00Z', values: { frequency: 2700 } }] },
    });
    expect(written.status).toBe(200);
    const stored = (await t.api('GET', `/points/${piezoId}/data?limit=1&order=desc`, { headers: admin })).body.data.items[0];
    expect(stored.values.pore_pressure).toBeCloseTo(177.5, 9);
  });

  it('changes the quality flag and remark of a reading shown at the clock of the project', async () => {
    // Shanghai keeps UTC+8 all year: the row must show the hour 8 hours after UTC.
    const measuredAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 2 * 3_600_000).toISOString();
    shanghai = new Date(Date.parse(measuredAt) + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    const written = await t.api('POST', `/projects/${projectId}/data`, {
      headers: admin,
      body: { records: [{ point_id: prismId, measured_at: measuredAt, values: { dx: 0.5, dy: 0.25, dz: 1 } }] },
    });
    expect(written.status).toBe(200);
    const dataId = written.body.data.records[0].data_id;
    await openPoint(prismId, 'Point HW-01 · Wall 1');
    const table = page.getByRole('table', { name: 'Recent readings of this point, times in Asia/Shanghai' });
    const row = table.getByRole('row', { name: new RegExp(`^${shanghai} Asia/Shanghai`) });
    await row.waitFor();
    // The latest values show the same clock.
    await page
      .getByRole('table', { name: 'The newest readings of this point' })
      .getByRole('rowheader', { name: `${shanghai} Asia/Shanghai` })
      .waitFor();

    await row.getByLabel(/^Quality flag of the reading/).selectOption('suspect');
    await row.getByLabel(/^Remark on the reading/).fill('Prism fogged');
    const patch = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes(`/v3/data/${dataId}`));
    await row.getByRole('button', { name: /^Save the reading/ }).click();
    expect((await patch).status()).toBe(200);
    expect((await t.api('GET', `/data/${dataId}`, { headers: admin })).body.data).toMatchObject({
      quality_flag: 'suspect',
      remark: 'Prism fogged',
      version: 2,
    });
  });

  it('enters a manual reading at a time of the zone of the project', async () => {
    // 09:15 in Shanghai on yesterday's Shanghai date is 01:15 UTC of that date.
    const base = new Date(Date.now() - 86_400_000);
    const day = new Date(base.getTime() + 8 * 3_600_000).toISOString().slice(0, 10);
    const form = page.getByRole('form', { name: 'Manual reading' });
    await form.getByLabel('Measured at (Asia/Shanghai)').fill(`${day}T09:15:00`);
    await form.getByLabel('dz (mm)').fill('3.5');
    await form.getByLabel('dx (mm)').fill('0.75');
    const post = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes(`/v3/projects/${projectId}/data`));
    await form.getByRole('button', { name: 'Add reading' }).click();
    expect((await post).status()).toBe(200);
    const items = (await t.api('GET', `/points/${prismId}/data?limit=50`, { headers: admin })).body.data.items;
    const manual = items.find((r: { measured_at: string }) => Date.parse(r.measured_at) === Date.parse(`${day}T01:15:00Z`));
    expect(manual).toMatchObject({ values: expect.objectContaining({ dx: 0.75, dz: 3.5 }) });
    expect(manual.values.dy).toBeUndefined();
    await page
      .getByRole('table', { name: 'Recent readings of this point, times in Asia/Shanghai' })
      .getByRole('rowheader', { name: `${day} 09:15:00 Asia/Shanghai` })
      .waitFor();
  });

  it('shows the latest reading on the project page at the clock of the project (an instrument point without reference stays off the site plan)', async () => {
    await page.goto(`${consoleUrl(t)}#/projects/${projectId}`);
    await page.getByRole('heading', { level: 1, name: /Harbour wall/ }).waitFor();
    const row = page.getByRole('table', { name: 'Points of this project' }).getByRole('row', { name: /HW-01/ });
    await row.waitFor();
    await row.getByText(`${shanghai} Asia/Shanghai`, { exact: true }).waitFor();
  });
});
