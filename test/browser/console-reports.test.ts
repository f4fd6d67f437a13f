import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { LAPTOP, screenshot, signIn } from '../support/console.js';
import { expectError, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The reports page in headless Chromium against the real platform (reports service included):
// create a template, generate reports for a project with a point and two days of data, follow
// the status to `generated`, download a document (its bytes are the report's sha256), approve
// with a comment, reject with a reason, and meet 409011 when someone else reviewed first.
describe('console: reports', () => {
  let t: TestPlatform;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let admin: Record<string, string>;
  let projectId: string;
  let templateId: string;
  const GENERATION = { timeout: 90_000 };

  const reportTitled = async (title: string) => {
    const res = await t.api('GET', `/reports?project_id=${projectId}`, { headers: admin });
    expect(res.status).toBe(200);
    return res.body.data.items.find((r: { title: string }) => r.title === title);
  };
  const row = (title: string): Locator => page.getByRole('row', { name: new RegExp(title) });
  /** Generates a report through the console's form and waits until the list shows it generated. */
  const generate = async (title: string) => {
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'RPT-1 · Harbour quay wall' });
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Monthly quay report' });
    await page.getByLabel('From (UTC day)').fill('2026-03-01');
    await page.getByLabel('To (UTC day, exclusive)').fill('2026-03-03');
    await page.getByLabel('Title (optional)').fill(title);
    await page.getByRole('button', { name: 'Generate report' }).click();
    // Nobody presses Refresh: the page reads the list again while a report is generating.
    await row(title).getByText('generated', { exact: true }).waitFor(GENERATION);
    return reportTitled(title);
  };

  beforeAll(async () => {
    t = await startTestPlatform();
    admin = { authorization: `Bearer ${await t.login()}` };
    const project = await t.api('POST', '/projects', { headers: admin, body: { name: 'Harbour quay wall', number: 'RPT-1', start_date: '2026-01-01' } });
    expect(project.status).toBe(200);
    projectId = project.body.data.id;
    expect((await t.api('PUT', `/projects/${projectId}/status`, { headers: admin, body: { status: 'in_progress' } })).status).toBe(200);
    const point = await t.api('POST', `/projects/${projectId}/points`, {
      headers: admin,
      body: {
        number: 'Q-01',
        name: 'Quay crest Q-01',
        sensor_type: 'total_station',
        reference: { x: 100, y: 200, z: 3 },
        thresholds: { warning: 5, alarm: 8 },
      },
    });
    expect(point.status).toBe(200);
    // Two days of readings every two hours, drifting into the warning band on the second day.
    const records = Array.from({ length: 24 }, (_, i) => ({
      point_id: point.body.data.id,
      measured_at: new Date(Date.parse('2026-03-01T00:00:00Z') + i * 2 * 3600_000).toISOString(),
      values: { dx: +(0.25 * i).toFixed(2), dy: -0.5, dz: 1.25 },
    }));
    expect((await t.api('POST', `/projects/${projectId}/data`, { headers: admin, body: { records } })).status).toBe(200);

    browser = await launchChromium({ viewport: LAPTOP });
    page = await browser.context.newPage();
    await signIn(page, t);
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('creates a template with every section and format', async () => {
    await page.getByLabel('Template name').fill('Monthly quay report');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByLabel('Template', { exact: true }).getByRole('option', { name: 'Monthly quay report' }).waitFor({ state: 'attached' });
    const templates = (await t.api('GET', '/templates', { headers: admin })).body.data.items;
    expect(templates).toHaveLength(1);
    expect(templates[0]).toMatchObject({
      name: 'Monthly quay report',
      sections: ['summary', 'alarms', 'latest', 'points'],
      formats: ['pdf', 'csv', 'xlsx'],
      point_ids: null,
    });
    templateId = templates[0].id;
  });

  it('generates a report, follows it to generated and downloads documents whose bytes are the listed sha256', async () => {
    const report = await generate('March quay check');
    expect(report).toMatchObject({ project_id: projectId, template_id: templateId, status: 'generated', record_count: 24 });
    const cells = await row('March quay check').getByRole('cell').allTextContents();
    expect(cells.slice(0, 4)).toEqual(['Harbour quay wall', '2026-03-01 – 2026-03-03', 'generated', '24data as of 2026-03-02 22:00:00 UTC']);

    for (const format of ['pdf', 'xlsx']) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: `Download ${format} of March quay check` }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${report.id}.${format}`);
      const bytes = readFileSync((await download.path())!);
      const file = report.files.find((f: { format: string }) => f.format === format);
      expect({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({ size: file.size_bytes, sha256: file.sha256 });
      if (format === 'pdf') expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    }
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
  });

  it('approves with a comment', async () => {
    await page.getByLabel('Comment or reason for approve / reject').fill('Checked against the site diary');
    await page.getByRole('button', { name: 'Approve March quay check' }).click();
    await row('March quay check').getByText('approved', { exact: true }).waitFor();
    await row('March quay check')
      .getByText(/: Checked against the site diary$/)
      .waitFor();
    expect(await page.getByRole('button', { name: 'Approve March quay check' }).count()).toBe(0);
    const report = await reportTitled('March quay check');
    expect(report).toMatchObject({ status: 'approved', comment: 'Checked against the site diary', reason: null, rejected_at: null });
    expect(report.approved_at).toEqual(expect.any(String));
    expect(await page.getByLabel('Comment or reason for approve / reject').inputValue()).toBe('');
  });

  it('rejects another report with a reason (Reject waits for the reason)', async () => {
    await generate('March quay recheck');
    const reject = page.getByRole('button', { name: 'Reject March quay recheck' });
    expect(await reject.isDisabled()).toBe(true);
    await page.getByLabel('Comment or reason for approve / reject').fill('Q-01 readings of 2 March need the resurvey');
    await reject.click();
    await row('March quay recheck').getByText('rejected', { exact: true }).waitFor();
    const report = await reportTitled('March quay recheck');
    expect(report).toMatchObject({ status: 'rejected', reason: 'Q-01 readings of 2 March need the resurvey', comment: null, approved_at: null });
    // The first report's decision is untouched.
    expect((await reportTitled('March quay check')).status).toBe('approved');
    await screenshot(page, '10-reports');
  });

  it('shows the 409011 error when another reviewer approved first, then the real status', async () => {
    const report = await generate('March quay third look');
    // Another reviewer approves while this page still offers Approve.
    const other = await t.api('POST', `/reports/${report.id}/approve`, { headers: admin, body: { comment: 'Approved by the other reviewer' } });
    expect(other.status).toBe(200);
    await page.getByLabel('Comment or reason for approve / reject').fill('My own comment');
    await page.getByRole('button', { name: 'Approve March quay third look' }).click();

    const again = await t.api('POST', `/reports/${report.id}/approve`, { headers: admin, body: {} });
    expectError(again, 409011, 'status');
    const alert = page.getByRole('alert').filter({ hasText: '(409011)' });
    await alert.waitFor();
    expect(await alert.locator('strong').textContent()).toBe(`${again.body.message} (409011)`);
    await alert.getByText(again.body.data.detail, { exact: true }).waitFor();
    // The list now shows who won; the refused approval changed nothing and keeps the typed comment.
    await row('March quay third look').getByText(': Approved by the other reviewer').waitFor();
    expect(await page.getByRole('button', { name: 'Approve March quay third look' }).count()).toBe(0);
    expect(await reportTitled('March quay third look')).toMatchObject({ status: 'approved', comment: 'Approved by the other reviewer' });
    expect(await page.getByLabel('Comment or reason for approve / reject').inputValue()).toBe('My own comment');
  });
});
