import type { Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { consoleUrl, LAPTOP, screenshot, signIn } from '../support/console.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

/** A phone held upright (the width of most current phones, CSS pixels). */
const PHONE = { width: 390, height: 844 };

// ADR 0089 in headless Chromium: the console opens on what needs attention — projects
// coloured by the highest level of their open alarms, the alarm inbox across projects with
// acknowledge-with-comment in place — and each project has a site plan of its points placed by
// their coordinates, coloured by their state, stale ones grey, each linking to its chart. The same
// at phone width, without sideways scrolling.
describe('console: overview and site plan', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  const ids: Record<string, string> = {};
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

  const must = async (res: Promise<{ status: number; text: string; body: any }>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`set-up call failed: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const project = async (name: string, number: string) => {
    const p = await must(t.api('POST', '/projects', { headers: admin, body: { name, number, start_date: '2026-01-01' } }));
    await must(t.api('PUT', `/projects/${p.id}/status`, { headers: admin, body: { status: 'in_progress' } }));
    return p.id as string;
  };
  const point = async (projectId: string, number: string, name: string, x: number, y: number, alarmRules?: Record<string, number>) =>
    (
      await must(
        t.api('POST', `/projects/${projectId}/points`, {
          headers: admin,
          body: {
            number,
            name,
            sensor_type: 'total_station',
            reference: { x, y, z: 45 },
            thresholds: { warning: 10, alarm: 20 },
            ...(alarmRules ? { alarm_rules: alarmRules } : {}),
          },
        }),
      )
    ).id as string;
  const write = (projectId: string, pointId: string, measuredAt: string, dz: number) =>
    must(
      t.api('POST', `/projects/${projectId}/data`, {
        headers: admin,
        body: { records: [{ point_id: pointId, measured_at: measuredAt, values: { dx: 0, dy: 0, dz } }] },
      }),
    );
  const inboxItems = () => page.getByRole('list', { name: 'Alarms' }).getByRole('listitem');
  const tile = (name: string) => page.getByRole('list', { name: 'Projects' }).getByRole('link', { name: new RegExp(name) });
  const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  beforeAll(async () => {
    // No scheduled stale-data check: the grey point is grey by its readings and rules alone.
    t = await startTestPlatform({ MP_ALARM_STALE_CHECK_MS: '0' });
    admin = { authorization: `Bearer ${await t.login()}` };
    ids.dam = await project('Dam crest', 'DAM-1');
    ids.tunnel = await project('Harbour tunnel', 'TUN-1');
    ids.quiet = await project('Quiet quarry', 'QRY-1');
    // Dam crest: a row of points along the crest (x east, y north), one off the line downstream.
    ids.cr1 = await point(ids.dam, 'CR-01', 'Crest 1', 1000, 500);
    ids.cr2 = await point(ids.dam, 'CR-02', 'Crest 2', 1040, 500);
    ids.cr3 = await point(ids.dam, 'CR-03', 'Crest 3', 1080, 500);
    ids.cr4 = await point(ids.dam, 'CR-04', 'Crest 4', 1120, 500, { expected_interval_seconds: 600, stale_factor: 2 });
    ids.toe = await point(ids.dam, 'TO-01', 'Toe 1', 1060, 460);
    ids.ring = await point(ids.tunnel, 'RG-01', 'Ring 1', 0, 0);
    await write(ids.dam, ids.cr1, minutesAgo(30), 26); // alarm
    await write(ids.dam, ids.cr2, minutesAgo(20), 12); // warning
    await write(ids.dam, ids.cr3, minutesAgo(10), 1); // normal
    await write(ids.dam, ids.cr4, minutesAgo(60), 1); // normal, but an hour without a reading: stale
    await write(ids.tunnel, ids.ring, minutesAgo(5), 11); // warning
    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('opens on the overview: projects coloured by their highest open level, the unacknowledged alarms of every project', async () => {
    await signIn(page, t);
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
    await tile('Quiet quarry').waitFor();
    // the most urgent project first
    expect(await page.getByRole('list', { name: 'Projects' }).getByRole('link').allInnerTexts()).toEqual([
      expect.stringMatching(/^Dam crest\s+DAM-1\s+1 alarm · 1 warning\s+2 not acknowledged$/),
      expect.stringMatching(/^Harbour tunnel\s+TUN-1\s+1 warning\s+1 not acknowledged$/),
      expect.stringMatching(/^Quiet quarry\s+QRY-1\s+no open alarms$/),
    ]);
    expect(await tile('Dam crest').getAttribute('class')).toBe('tile level-alarm');
    expect(await tile('Harbour tunnel').getAttribute('class')).toBe('tile level-warning');
    expect(await tile('Quiet quarry').getAttribute('class')).toBe('tile level-none');

    await inboxItems().nth(2).waitFor();
    // the alarms are listed first and named once their projects' points are read (until then an
    // item names its point by id): wait for the names
    for (const name of ['warning at RG-01 · Ring 1', 'warning at CR-02 · Crest 2', 'alarm at CR-01 · Crest 1'])
      await page.getByRole('listitem', { name, exact: true }).waitFor();
    expect(await inboxItems().evaluateAll((items) => items.map((i) => i.getAttribute('aria-label')))).toEqual([
      'warning at RG-01 · Ring 1',
      'warning at CR-02 · Crest 2',
      'alarm at CR-01 · Crest 1',
    ]);
    const crest = page.getByRole('listitem', { name: 'alarm at CR-01 · Crest 1' });
    expect(await crest.innerText()).toContain('Dam crest');
    expect(await crest.getByRole('link', { name: 'CR-01 · Crest 1' }).getAttribute('href')).toBe(`#/points/${ids.cr1}`);
    await screenshot(page, '11-overview');
  });

  it('acknowledges an alarm with a comment from the overview: it leaves the unacknowledged list and the tile counts follow', async () => {
    const crest = page.getByRole('listitem', { name: 'alarm at CR-01 · Crest 1' });
    await crest.getByRole('button', { name: 'Acknowledge…' }).click();
    await crest.getByLabel('Comment (optional)').fill('Crew on the crest, survey repeated');
    await crest.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await crest.waitFor({ state: 'detached' });
    await tile('Dam crest').getByText('1 not acknowledged').waitFor();
    expect(await inboxItems().count()).toBe(2);
    expect(await tile('Dam crest').innerText()).toMatch(/1 alarm · 1 warning\s+1 not acknowledged$/);

    const [stored] = (await must(t.api('GET', `/alarms?point_id=${ids.cr1}`, { headers: admin }))).items;
    expect(stored).toMatchObject({ status: 'acknowledged', acknowledged: { comment: 'Crew on the crest, survey repeated', by: { principal_type: 'user' } } });

    await page.getByLabel('Show').selectOption('acknowledged');
    const acknowledged = page.getByRole('listitem', { name: 'alarm at CR-01 · Crest 1' });
    await acknowledged.waitFor();
    expect(await acknowledged.innerText()).toContain('“Crew on the crest, survey repeated”');
    expect(await acknowledged.getByRole('button').count()).toBe(0);
    await page.getByLabel('Show').selectOption('open');
  });

  it('draws the site plan: points where their coordinates are, coloured by state, stale grey, each linking to its chart', async () => {
    await tile('Dam crest').click();
    await page.getByRole('heading', { level: 1, name: 'Dam crest (DAM-1)' }).waitFor();
    const plan = page.getByRole('group', { name: 'Site plan' });
    await plan.getByRole('link').nth(4).waitFor();
    const points = await plan.getByRole('link').evaluateAll((links) =>
      links.map((a) => {
        const c = a.querySelector('circle')!;
        return { label: a.getAttribute('aria-label'), cls: a.getAttribute('class'), x: Number(c.getAttribute('cx')), y: Number(c.getAttribute('cy')) };
      }),
    );
    const by = (n: string) => points.find((p) => p.label!.startsWith(n))!;
    expect(points.map((p) => [p.label, p.cls]).sort()).toEqual([
      ['CR-01 Crest 1: alarm', 'plan-point level-alarm'],
      ['CR-02 Crest 2: warning', 'plan-point level-warning'],
      ['CR-03 Crest 3: normal', 'plan-point level-normal'],
      ['CR-04 Crest 4: stale (last normal)', 'plan-point stale'],
      ['TO-01 Toe 1: no data', 'plan-point nodata'],
    ]);
    // Placed as on site: the crest west to east in a row, the toe south of it (north is up).
    expect([by('CR-01').x < by('CR-02').x, by('CR-02').x < by('CR-03').x, by('CR-03').x < by('CR-04').x]).toEqual([true, true, true]);
    expect(new Set(['CR-01', 'CR-02', 'CR-03', 'CR-04'].map((n) => by(n).y)).size).toBe(1);
    expect(by('TO-01').y).toBeGreaterThan(by('CR-01').y);
    // the stale point is drawn grey
    expect(
      await plan
        .getByRole('link', { name: /^CR-04/ })
        .locator('circle')
        .evaluate((c) => getComputedStyle(c).fill),
    ).toBe('rgb(140, 149, 159)');
    expect(await page.getByRole('list', { name: 'Legend' }).innerText()).toMatch(
      /normal \(1\)\s+warning \(1\)\s+alarm \(1\)\s+stale \(no recent reading\) \(1\)\s+no data yet \(1\)/,
    );
    // the point table says the same in words, with the latest reading's time
    const row = page.getByRole('table', { name: 'Points of this project' }).getByRole('row', { name: /CR-04/ });
    expect(await row.getByRole('cell').nth(4).innerText()).toBe('stale (last normal)');
    await screenshot(page, '12-site-plan');

    await plan.getByRole('link', { name: /^CR-01/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Point CR-01 · Crest 1' }).waitFor();
  });

  it('fits a phone: the overview and the site plan without sideways scrolling, acknowledging still in place', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(consoleUrl(t));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await inboxItems().nth(1).waitFor();
    expect(await noSidewaysScroll()).toBe(true);
    // the tiles stack in one column, each as wide as the page allows
    const widths = await page
      .getByRole('list', { name: 'Projects' })
      .getByRole('link')
      .evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect().width));
    expect(widths.every((w) => w > PHONE.width * 0.8 && w <= PHONE.width)).toBe(true);

    const ring = page.getByRole('listitem', { name: 'warning at RG-01 · Ring 1' });
    await ring.getByRole('button', { name: 'Acknowledge…' }).click();
    await ring.getByLabel('Comment (optional)').fill('Checked from the site office');
    expect(await noSidewaysScroll()).toBe(true);
    await screenshot(page, '13-overview-phone');
    await ring.getByRole('button', { name: 'Acknowledge', exact: true }).click();
    await ring.waitFor({ state: 'detached' });
    const [stored] = (await must(t.api('GET', `/alarms?point_id=${ids.ring}`, { headers: admin }))).items;
    expect(stored).toMatchObject({ status: 'acknowledged', acknowledged: { comment: 'Checked from the site office' } });

    await page.goto(`${consoleUrl(t)}#/projects/${ids.dam}`);
    const plan = page.getByRole('group', { name: 'Site plan' });
    await plan.getByRole('link').nth(4).waitFor();
    const box = (await plan.boundingBox())!;
    expect(box.width).toBeLessThanOrEqual(PHONE.width);
    expect(await noSidewaysScroll()).toBe(true);
    await screenshot(page, '14-site-plan-phone');
  });
});
