import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { LAPTOP, screenshot, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { pngImage } from '@mp/testing';

// The console's projects pages in headless Chromium against the real platform: list and create,
// status moves by the published table, points with thresholds, devices, tasks with the overdue
// mark, and members.
describe('console: projects', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { authorization: `Bearer ${await t.login()}` };
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
    await signIn(page, t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('creates a project and lists it', async () => {
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await page.getByLabel('Project name').fill('North Embankment');
    await page.getByLabel('Project number').fill('NE-2026');
    await page.getByLabel('Start date (optional)').fill('2026-01-01');
    await page.getByRole('button', { name: 'Create project' }).click();
    const row = page.getByRole('row', { name: /North Embankment/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual(['NE-2026', 'not started', 'no open alarms', '2026-01-01', expect.stringMatching(/ UTC$/)]);
    const stored = (await t.api('GET', '/projects', { headers: admin })).body.data.items;
    expect(stored).toEqual([expect.objectContaining({ name: 'North Embankment', number: 'NE-2026', status: 'not_started', start_date: '2026-01-01' })]);
    projectId = stored[0].id;

    // A duplicate number is the API's 409001, shown in the form; nothing more is created.
    await page.getByLabel('Project name').fill('Copy');
    await page.getByLabel('Project number').fill('NE-2026');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('form', { name: 'Create a project' }).getByRole('alert').getByText('(409001)').waitFor();
    expect((await t.api('GET', '/projects', { headers: admin })).body.data.items).toHaveLength(1);
    await screenshot(page, '03-projects');
    await row.getByRole('link', { name: 'North Embankment' }).click();
    await page.getByRole('heading', { level: 1, name: 'North Embankment (NE-2026)' }).waitFor();
  });

  it('moves the project through its statuses, offering only the allowed moves', async () => {
    const moves = () => page.getByRole('button', { name: /^Move to / }).allTextContents();
    expect(await moves()).toEqual(['Move to in progress', 'Move to archived']);
    await page.getByRole('button', { name: 'Move to in progress' }).click();
    await page.getByRole('button', { name: 'Move to paused' }).waitFor();
    expect(await moves()).toEqual(['Move to paused', 'Move to completed']);
    expect((await t.api('GET', `/projects/${projectId}`, { headers: admin })).body.data.status).toBe('in_progress');
  });

  it('adds a device and a point with thresholds on that device', async () => {
    await page.getByLabel('Serial number').fill('TS-0042');
    await page.getByLabel('Model').fill('TM50');
    await page.getByLabel('Device type').selectOption('total_station');
    await page.getByLabel('Device name (optional)').fill('Station A');
    await page.getByRole('button', { name: 'Add device' }).click();
    await page.getByRole('row', { name: /TS-0042/ }).waitFor();
    const device = (await t.api('GET', '/devices', { headers: admin })).body.data.items[0];
    expect(device).toMatchObject({ serial_number: 'TS-0042', model: 'TM50', type: 'total_station', name: 'Station A' });

    await page.getByLabel('Point number').fill('P-01');
    await page.getByLabel('Point name').fill('Crest 1');
    await page.getByLabel('Sensor type').selectOption('total_station');
    await page.getByLabel('Device (optional)').selectOption(device.id);
    await page.getByLabel('Reference x (m)').fill('3512345.1');
    await page.getByLabel('Reference y (m)').fill('512345.6');
    await page.getByLabel('Reference z (m)').fill('45.3');
    await page.getByLabel('Warning threshold (mm)').fill('5');
    await page.getByLabel('Alarm threshold (mm)').fill('10');
    await page.getByRole('button', { name: 'Add point' }).click();
    const row = page.getByRole('table', { name: 'Points of this project' }).getByRole('row', { name: /Crest 1/ });
    await row.waitFor();
    // a point without readings yet: no state, no time, and a dashed ring on the site plan
    expect(await row.getByRole('cell').allTextContents()).toEqual(['P-01', 'total station', '5 / 10', 'Station A', 'no data', '—']);
    const onPlan = page.getByRole('group', { name: 'Site plan' }).getByRole('link', { name: 'P-01 Crest 1: no data' });
    expect(await onPlan.getAttribute('href')).toBe(
      `#/points/${(await t.api('GET', `/projects/${projectId}/points`, { headers: admin })).body.data.items[0].id}`,
    );
    const points = (await t.api('GET', `/projects/${projectId}/points`, { headers: admin })).body.data.items;
    expect(points).toEqual([
      expect.objectContaining({
        number: 'P-01',
        name: 'Crest 1',
        sensor_type: 'total_station',
        device_id: device.id,
        thresholds: { warning: 5, alarm: 10 },
        reference: { x: 3512345.1, y: 512345.6, z: 45.3 },
      }),
    ]);
  });

  it('adds an instrument point: no displacement thresholds, coordinates optional', async () => {
    await page.getByLabel('Point number').fill('PZ-01');
    await page.getByLabel('Point name').fill('Toe piezometer');
    await page.getByLabel('Sensor type').selectOption('piezometer');
    // A piezometer's limits are trigger levels (set with Edit): no millimetre thresholds asked.
    expect(await page.getByLabel('Warning threshold (mm)').count()).toBe(0);
    expect(await page.getByLabel('Location (optional) x (m)').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Add point' }).click();
    const row = page.getByRole('table', { name: 'Points of this project' }).getByRole('row', { name: /Toe piezometer/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual(['PZ-01', 'piezometer', '—', '—', 'no data', '—']);
    const stored = (await t.api('GET', `/projects/${projectId}/points`, { headers: admin })).body.data.items.find(
      (p: { number: string }) => p.number === 'PZ-01',
    );
    expect(stored).toMatchObject({ sensor_type: 'piezometer', trigger_levels: [] });
    expect(stored.thresholds ?? null).toBeNull();
    expect(stored.reference ?? null).toBeNull();
  });

  it('stores a survey round typed in at the clock of the project, all or nothing', async () => {
    const version = (await t.api('GET', `/projects/${projectId}`, { headers: admin })).body.data.version;
    expect((await t.api('PATCH', `/projects/${projectId}`, { headers: admin, body: { time_zone: 'Asia/Shanghai', version } })).status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'North Embankment (NE-2026)' }).waitFor();
    const points = (await t.api('GET', `/projects/${projectId}/points`, { headers: admin })).body.data.items;
    const prism = points.find((p: { number: string }) => p.number === 'P-01');
    const piezo = points.find((p: { number: string }) => p.number === 'PZ-01');
    const form = page.getByRole('form', { name: 'Survey round' });
    // Yesterday 08:30 on a Shanghai clock is 00:30 UTC of that date.
    const day = new Date(Date.now() - 86_400_000 + 8 * 3_600_000).toISOString().slice(0, 10);
    await form.getByLabel('Round measured at (Asia/Shanghai)').fill(`${day}T08:30:00`);
    await form.getByLabel('Points of type').selectOption('total_station');
    await form.getByLabel('dz of P-01 (mm)').fill('2.5');
    await form.getByLabel('dx of P-01 (mm)').fill('-0.5');
    await form.getByRole('button', { name: 'Store the round' }).click();
    await form.getByRole('status').getByText('Stored 1 reading.').waitFor();
    const prismData = (await t.api('GET', `/points/${prism.id}/data`, { headers: admin })).body.data.items;
    expect(prismData).toEqual([expect.objectContaining({ measured_at: expect.any(String), values: expect.objectContaining({ dx: -0.5, dz: 2.5 }) })]);
    expect(Date.parse(prismData[0].measured_at)).toBe(Date.parse(`${day}T00:30:00Z`));

    // A value outside the piezometer's plausible range: the API's refusal beside that input, nothing stored.
    await form.getByLabel('Points of type').selectOption('piezometer');
    await form.getByLabel('pore_pressure of PZ-01 (kPa)').fill('999999');
    await form.getByRole('button', { name: 'Store the round' }).click();
    await form.getByRole('alert').getByText('(422201)').waitFor();
    expect(await form.getByLabel('pore_pressure of PZ-01 (kPa)').getAttribute('aria-invalid')).toBe('true');
    expect((await t.api('GET', `/points/${piezo.id}/data`, { headers: admin })).body.data.items).toEqual([]);
    await form.getByLabel('pore_pressure of PZ-01 (kPa)').fill('152.5');
    await form.getByRole('button', { name: 'Store the round' }).click();
    await form.getByRole('status').getByText('Stored 1 reading.').waitFor();
    expect((await t.api('GET', `/points/${piezo.id}/data`, { headers: admin })).body.data.items).toEqual([
      expect.objectContaining({ values: expect.objectContaining({ pore_pressure: 152.5 }) }),
    ]);
  });

  it('places points by hand on an uploaded drawing of the site, and goes back to coordinates without it', async () => {
    const points = (await t.api('GET', `/projects/${projectId}/points`, { headers: admin })).body.data.items;
    const piezo = points.find((p: { number: string }) => p.number === 'PZ-01');
    const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Site plan' }) });
    // A GIF is refused by the API (422103), shown in the card; no drawing is kept.
    await card
      .getByLabel('Upload a drawing of the site (PNG or JPEG)')
      .setInputFiles({ name: 'plan.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a\x01\x00\x01\x00') });
    await card.getByRole('alert').getByText('(422103)').waitFor();
    expect((await t.api('GET', `/projects/${projectId}/site-plan`, { headers: admin })).body.code).toBe(404040);

    const drawing = pngImage(400, 200, (x, y) => (Math.abs(x - y) < 3 ? [40, 40, 40, 255] : [235, 240, 245, 255]));
    await card.getByLabel('Upload a drawing of the site (PNG or JPEG)').setInputFiles({ name: 'plan.png', mimeType: 'image/png', buffer: drawing });
    await card.getByText('Not on the drawing yet: P-01, PZ-01.').waitFor();
    await card.getByLabel('Place a point on the drawing').selectOption(piezo.id);
    const plan = card.getByRole('group', { name: 'Site plan' });
    const box = (await plan.boundingBox())!;
    await plan.click({ position: { x: box.width * 0.25, y: box.height * 0.5 } });
    await plan.getByRole('link', { name: /^PZ-01 Toe piezometer: / }).waitFor();
    await card.getByText('Not on the drawing yet: P-01.').waitFor();
    const stored = (await t.api('GET', `/projects/${projectId}/site-plan`, { headers: admin })).body.data;
    expect(stored).toMatchObject({ width: 400, height: 200, content_type: 'image/png' });
    expect(stored.positions).toHaveLength(1);
    expect(stored.positions[0].point_id).toBe(piezo.id);
    expect(stored.positions[0].x).toBeCloseTo(0.25, 1);
    expect(stored.positions[0].y).toBeCloseTo(0.5, 1);
    // The point on the drawing links to its chart.
    expect(await plan.getByRole('link', { name: /^PZ-01 Toe piezometer: / }).getAttribute('href')).toBe(`#/points/${piezo.id}`);
    await screenshot(page, '16-site-plan-drawing');

    // Without the drawing, the points are placed by their coordinates again (the prism only).
    await card.getByRole('button', { name: 'Remove the drawing' }).click();
    await plan.getByRole('link', { name: /^P-01 Crest 1: / }).waitFor();
    expect(await plan.getByRole('link', { name: /^PZ-01/ }).count()).toBe(0);
    expect((await t.api('GET', `/projects/${projectId}/site-plan`, { headers: admin })).body.code).toBe(404040);
  });

  it('adds tasks due at the clock of the project, marks the overdue one, and moves a task by its status table', async () => {
    await page.getByLabel('Task name').fill('Monthly survey');
    // 09:00 in Shanghai (the project's zone since the previous test) is 01:00 UTC.
    await page.getByLabel('Due (optional, Asia/Shanghai)').fill('2026-01-15T09:00');
    await page.getByRole('button', { name: 'Add task' }).click();
    const overdue = page.getByRole('row', { name: /Monthly survey/ });
    await overdue.waitFor();
    expect(await overdue.getByRole('cell').nth(0).textContent()).toBe('pendingoverdue');

    await page.getByLabel('Task name').fill('Install prisms');
    await page.getByLabel('Due (optional, Asia/Shanghai)').fill('2099-06-01T09:00');
    await page.getByRole('button', { name: 'Add task' }).click();
    const row = page.getByRole('row', { name: /Install prisms/ });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(0).textContent()).toBe('pending');
    expect(await row.getByRole('button').allTextContents()).toEqual(['in progress', 'cancelled']);
    await page.getByRole('button', { name: 'Move Install prisms to in progress' }).click();
    await row.getByRole('button', { name: 'Move Install prisms to completed' }).waitFor();
    expect(await row.getByRole('cell').nth(0).textContent()).toBe('in progress');

    const tasks = (await t.api('GET', `/projects/${projectId}/tasks`, { headers: admin })).body.data.items;
    expect(tasks.map((x: { name: string; status: string; overdue: boolean }) => [x.name, x.status, x.overdue]).sort()).toEqual([
      ['Install prisms', 'in_progress', false],
      ['Monthly survey', 'pending', true],
    ]);
    expect(Date.parse(tasks.find((x: { name: string }) => x.name === 'Monthly survey').due_at)).toBe(Date.parse('2026-01-15T01:00:00Z'));
  });

  it('adds a member with a role and removes them', async () => {
    const user = (
      await t.api('POST', '/users', {
        headers: admin,
        body: { username: 'surveyor', name: 'Site Surveyor', password: 'a long passphrase', permissions: ['project:read'] },
      })
    ).body.data;
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'North Embankment (NE-2026)' }).waitFor();
    await page.getByLabel('User').selectOption(user.id);
    await page.getByLabel('Role').selectOption('editor');
    await page.getByRole('button', { name: 'Add member' }).click();
    const row = page.getByRole('row', { name: /Site Surveyor/ });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(0).textContent()).toBe('editor');
    const members = (await t.api('GET', `/projects/${projectId}/members`, { headers: admin })).body.data.items;
    // The project's creator is its owner from the start.
    const me = (await t.api('GET', '/me', { headers: admin })).body.data;
    expect(members.map((m: { user_id: string; role: string }) => [m.user_id, m.role]).sort()).toEqual(
      [
        [user.id, 'editor'],
        [me.id, 'owner'],
      ].sort(),
    );
    expect(
      await page
        .getByRole('row', { name: /Administrator/ })
        .getByRole('cell')
        .nth(0)
        .textContent(),
    ).toBe('owner');
    await screenshot(page, '04-project-detail');

    await page.getByRole('button', { name: 'Remove Site Surveyor' }).click();
    await row.waitFor({ state: 'detached' });
    const left = (await t.api('GET', `/projects/${projectId}/members`, { headers: admin })).body.data.items;
    expect(left.map((m: { role: string }) => m.role)).toEqual(['owner']);
  });
});
