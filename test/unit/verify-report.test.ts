/** The report page as text: self-contained (no script, no link to anything), the data escaped, complete and short verdicts. */
import { describe, expect, it } from 'vitest';
import { niceMax } from '../../src/verify/report/day-chart.js';
import { renderVerifyReport } from '../../src/verify/report/render-report.js';
import { orderRows, summarize } from '../../src/verify/verify-table.js';
import { threeYearResult } from '../helpers/verify-result.js';

describe('renderVerifyReport', () => {
  const html = renderVerifyReport(threeYearResult());

  it('needs nothing from outside: no script, no URL to load, a policy that forbids loading', () => {
    expect(html).not.toMatch(/<script|<link|<img|<iframe|src=|href=|url\(|@import/i);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });

  it('escapes text from the data', () => {
    expect(html).toContain('Invalid event &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;');
    expect(html).toContain('/data/migration &lt;2023-2025&gt;.db');
  });

  it('says complete in green when nothing is missing, with one column per day', () => {
    const result = threeYearResult();
    result.rows = orderRows(result.rows.map((r) => ({ ...r, landed: r.delivered, missing: 0 })));
    result.summary = summarize(result.rows);
    const page = renderVerifyReport(result);
    expect(page).toContain('<p class="verdict complete" data-verdict="complete">all 1,096 days complete');
    expect(page.match(/class="hover"/g)).toHaveLength(1096);
    expect(page).not.toContain('class="short"');
    expect(page).toContain('None: every day holds all it was sent.');
  });

  it.each<[number, number]>([
    [0, 1],
    [1, 1],
    [7, 10],
    [1758, 2000],
    [2001, 5000],
    [50_000, 50_000],
  ])('niceMax(%d) = %d', (max, nice) => {
    expect(niceMax(max)).toBe(nice);
  });
});
