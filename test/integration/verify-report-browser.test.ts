/**
 * The verify report in a real headless Chromium (Debian's `chromium`, driven by playwright-core;
 * no browser is downloaded): it renders without console errors, makes no request of any kind,
 * and shows the expected totals. Skipped with a message where /usr/bin/chromium is missing.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count } from '../../src/util/format.js';
import { renderVerifyReport } from '../../src/verify/report/render-report.js';
import { threeYearResult, SHORT_DAYS } from '../helpers/verify-result.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`verify report browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/** The flags of a quiet, offline, throwaway browser. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

describe.skipIf(!available)('the verify report in Chromium', () => {
  let dir: string;
  let context: BrowserContext;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'migrate-report-'));
    // A fresh profile each run (playwright passes it as --user-data-dir).
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: FLAGS, chromiumSandbox: false, viewport: { width: 1100, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders a three-year migration with no console error and no request, showing the totals and the short days', async () => {
    const result = threeYearResult();
    const file = join(dir, 'verify-report.html');
    writeFileSync(file, renderVerifyReport(result));
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => requests.push(request.url()));
    // Only the page itself may load; anything else it asked for would be aborted (and listed).
    await context.route('**/*', (route) => (route.request().url() === pathToFileURL(file).href ? route.continue() : route.abort()));

    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const text = async (selector: string) => (await page.locator(selector).textContent())?.trim();

    expect(problems).toEqual([]);
    expect(requests).toEqual([pathToFileURL(file).href]);
    const t = result.summary.totals;
    expect(await text('[data-total="staged"]')).toBe(count(t.staged));
    expect(await text('[data-total="delivered"]')).toBe(count(t.delivered));
    expect(await text('[data-total="landed"]')).toBe(count(t.landed));
    expect(await text('[data-total="missing"]')).toBe(count(159));
    expect(await text('[data-total="dead-letters"]')).toBe(count(t.deadLetters));
    expect(await text('[data-verdict]')).toBe(`3 days short by 159 events: ${count(t.delivered - 159)} of ${count(t.delivered)} delivered events landed`);
    expect(await page.locator('svg.chart rect.short').count()).toBe(SHORT_DAYS.size);
    expect(await page.locator('svg.chart rect.hover').count()).toBe(1096);
    expect(await page.locator('script').count()).toBe(0);
    // The server's message is shown as text, not run.
    expect(await page.getByText('Invalid event <script>alert("x")</script> & "quotes"').count()).toBe(1);
    const box = await page.locator('svg.chart').boundingBox();
    expect(box?.width).toBeGreaterThan(900);
    await page.screenshot({ path: join(tmpdir(), 'migrate-verify-report.png'), fullPage: true });
  }, 60_000);
});
