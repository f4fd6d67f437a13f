import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { LAPTOP, screenshot, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

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
    const row = page.getByRole('row', { name: /Crest 1/ });
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

  it('adds tasks, marks the overdue one, and moves a task by its status table', async () => {
    await page.getByLabel('Task name').fill('Monthly survey');
    await page.getByLabel('Due (optional, your local time)').fill('2026-01-15T09:00');
    await page.getByRole('button', { name: 'Add task' }).click();
    const overdue = page.getByRole('row', { name: /Monthly survey/ });
    await overdue.waitFor();
    expect(await overdue.getByRole('cell').nth(0).textContent()).toBe('pendingoverdue');

    await page.getByLabel('Task name').fill('Install prisms');
    await page.getByLabel('Due (optional, your local time)').fill('2099-06-01T09:00');
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
