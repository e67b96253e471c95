import { describe, expect, it } from 'vitest';
import { evaluate, FILE_HEADER, formatTable, headlines, headlineText, insertSection, markdownTable, runSection, shellQuote, type Row, type StepResults } from '../../bench/lib/bench-report.mjs';

const MB = 1e6;
const counts = { staged: 990_000, rejected: 9_000, skipped: 0, duplicates: 1_000 };
const results: StepResults = {
  formats: [
    {
      format: 'csv',
      floor: { rows: 1_000_000, wallMs: 2_000, peakRssBytes: 80 * MB },
      export: { rows: 1_000_000, wallMs: 5_000, peakRssBytes: 150 * MB, stagingBytes: 150 * MB, sourceBytes: 173 * MB, expected: counts, got: counts },
    },
    {
      format: 'mixpanel',
      floor: { rows: 1_000_000, wallMs: 10_000, peakRssBytes: 100 * MB },
      export: { rows: 1_000_000, wallMs: 16_000, peakRssBytes: 320 * MB, stagingBytes: 900 * MB, sourceBytes: 1_000 * MB, expected: counts, got: { ...counts, rejected: 8_999 } },
    },
    { format: 'csv-nested', floor: { rows: 1_000_000, wallMs: 15_000, peakRssBytes: 60 * MB } },
  ],
  imports: [
    {
      kind: 'flat',
      import: { events: 1_000_000, staged: 1_000_000, counted: 1_000_000, wireBytes: 43 * MB, requests: 1_000, wallMs: 4_000, peakRssBytes: 320 * MB },
      peer: { events: 200_000, counted: 200_000, bytesSent: 8 * MB, requests: 200, wallMs: 20_000, peakRssBytes: 400 * MB },
    },
    { kind: 'nested', import: { events: 1_000_000, staged: 1_000_000, counted: 999_000, wireBytes: 90 * MB, requests: 2_000, wallMs: 8_000, peakRssBytes: 200 * MB } },
  ],
  status: { stagedEvents: 1_000_000, afterImport: true, wallMs: 300, peakRssBytes: 60 * MB },
};

const find = (rows: Row[], step: string, what: string): Row => {
  const row = rows.find((r) => r.step.startsWith(step) && r.what.startsWith(what));
  if (!row) throw new Error(`no row ${step} ${what}`);
  return row;
};

describe('bench evaluation', () => {
  it('computes the ratios from rates, not totals; the headline export ratio is the worst over the formats', () => {
    // csv: 200k rows/s over a floor of 500k; mixpanel: 62.5k over 100k; flat import 250k events/s over a peer of 10k.
    const h = headlines(results);
    expect(h.exports.map((e) => [e.format, +e.ratio.toFixed(3), e.min])).toEqual([
      ['csv', 0.4, 0.5],
      ['mixpanel', 0.625, 0.5],
    ]);
    expect(h.worstExport).toMatchObject({ format: 'csv' });
    expect(h.imports).toEqual([{ kind: 'flat', ratio: 25 }]);
    expect(headlineText(h)).toBe('worst export-source / floor over 2 formats 0.40× (csv, target >= 0.5×; 1 of 2 met); import / posthog-node 25.00× flat (target >= 10×)');
  });

  it('has no ratio when a side did not run', () => {
    expect(headlines({ formats: [{ format: 'jsonl', export: results.formats[0]!.export }], imports: [] })).toEqual({ exports: [], worstExport: null, imports: [] });
    const rows = evaluate({ formats: [{ format: 'jsonl', export: results.formats[0]!.export }], imports: [results.imports[1]!] }, 1_000_000);
    expect(find(rows, 'jsonl: export-source', 'vs floor')).toMatchObject({ ratio: 'n/a (floor not run)', met: '?' });
    expect(find(rows, 'import, nested', 'vs peer')).toMatchObject({ ratio: 'n/a (peer not run)', met: '?' });
    expect(headlineText(headlines({ formats: [], imports: [] }))).toBe('export-source / floor n/a; import / posthog-node n/a (target >= 10×)');
  });

  it.each<[string, string, string, string]>([
    ['csv: csv-parse floor', 'rows/s', '500,000 (2.00 s)', ''],
    ['csv: export-source', 'rows/s', '200,000 (5.00 s)', 'yes'],
    ['csv: export-source', 'vs floor', '', 'no'],
    ['csv: export-source', 'staging file', '150.0 MB (source 173.0 MB)', 'yes'],
    ['csv: export-source', 'peak RSS', '150.0 MB', 'yes'],
    ['csv: export-source', 'counts', '990,000 staged, 9,000 rejected, 0 skipped, 1,000 identical', 'yes'],
    ['mixpanel: JSON.parse floor', 'rows/s', '100,000 (10.00 s)', ''],
    ['mixpanel: export-source', 'rows/s', '62,500 (16.00 s)', ''],
    ['mixpanel: export-source', 'vs floor', '', 'yes'],
    ['mixpanel: export-source', 'peak RSS', '320.0 MB', 'no'],
    ['mixpanel: export-source', 'staging file', '900.0 MB (source 1000.0 MB)', 'no'],
    ['mixpanel: export-source', 'counts', '990,000 staged, 8,999 rejected, 0 skipped, 1,000 identical', 'no'],
    ['csv-nested: csv-parse floor', 'rows/s', '66,667 (15.00 s)', ''],
    ['import, flat', 'events/s', '250,000 (4.00 s)', 'yes'],
    ['import, flat', 'vs peer', '', 'yes'],
    ['import, flat', 'peak RSS', '320.0 MB', 'no'],
    ['import, flat', 'counted by sandbox', '1,000,000 of 1,000,000', 'yes'],
    ['import, nested', 'counted by sandbox', '999,000 of 1,000,000', 'no'],
    ['posthog-node, flat', 'events/s', '10,000 (20.00 s, first 200,000 events)', ''],
    ['status', 'latency', '0.30 s', 'yes*'],
  ])('%s %s: %s, met %s', (step, what, figure, met) => {
    const row = find(evaluate(results, 1_000_000), step, what);
    if (figure !== '') expect(row.figure).toBe(figure);
    expect(row.met).toBe(met);
  });

  it('holds every JSON source to the staging target against its bytes', () => {
    for (const format of ['jsonl', 'posthog']) {
      const json = { format, export: { ...results.formats[1]!.export!, stagingBytes: 650 * MB, sourceBytes: 1_000 * MB } };
      expect(find(evaluate({ formats: [json], imports: [] }, 1_000_000), `${format}: export-source`, 'staging file')).toMatchObject({ ratio: '0.65× source', target: '<= 0.6× source', met: 'no' });
    }
  });

  it('holds peak RSS to its target at every size, a million events as twenty million', () => {
    expect(find(evaluate(results, 1_000_000), 'mixpanel: export-source', 'peak RSS')).toMatchObject({ target: '< 300 MB', met: 'no' });
  });

  it('holds a CSV with nested properties to its own target', () => {
    const nested = { format: 'csv-nested', floor: results.formats[2]!.floor, export: { ...results.formats[0]!.export!, wallMs: 26_000 } };
    expect(find(evaluate({ formats: [nested], imports: [] }, 1_000_000), 'csv-nested: export-source', 'vs floor')).toMatchObject({ ratio: '0.58× floor', target: '>= 0.6× floor', met: 'no' });
  });

  it('holds an Amplitude zip to its target against the JSON it holds, and shows its size against the zip too', () => {
    const amplitude = { format: 'amplitude', export: { ...results.formats[1]!.export!, stagingBytes: 420 * MB, sourceBytes: 186 * MB, sourceTextBytes: 1_660 * MB } };
    const rows = evaluate({ formats: [amplitude], imports: [] }, 1_000_000);
    expect(find(rows, 'amplitude: export-source', 'staging file vs the JSON in the zip')).toMatchObject({ ratio: '0.25× JSON', target: '<= 0.6× JSON', met: 'yes' });
    expect(rows.filter((r) => r.what === 'staging file')).toMatchObject([{ ratio: '2.26× source', target: '', met: '' }]);
  });

  it('drops the asterisk at the size the targets are set at', () => {
    const rows = evaluate(results, 5_000_000);
    expect(find(rows, 'csv: export-source', 'peak RSS').met).toBe('yes');
    expect(find(rows, 'status', 'latency').met).toBe('yes');
  });

  it('sets a large run beside its baseline: rows/s against the straight-line target, CPU per row, peak RSS at both sizes', () => {
    const base = { ...results.formats[1]!.export!, rows: 1_000_000, wallMs: 50_000, cpuMs: 80_000, peakRssBytes: 280 * MB };
    const large = { ...results.formats[1]!.export!, rows: 20_000_000, wallMs: 1_250_000, cpuMs: 1_800_000, peakRssBytes: 310 * MB };
    const r: StepResults = { formats: [{ format: 'mixpanel', export: large, baseline: base }], imports: [] };
    const rows = evaluate(r, 20_000_000);
    expect(find(rows, 'mixpanel: straight line', 'rows/s at 20,000,000 rows vs at 1,000,000')).toMatchObject({ ratio: '0.80×', target: '>= 0.85×', met: 'no' });
    expect(find(rows, 'mixpanel: straight line', 'CPU per row, large run vs small')).toMatchObject({ figure: '90.0 µs vs 80.0 µs', ratio: '1.13×' });
    expect(find(rows, 'mixpanel: export-source, 1,000,000 rows', 'peak RSS')).toMatchObject({ target: '< 300 MB', met: 'yes' });
    expect(find(rows, 'mixpanel: export-source', 'peak RSS')).toMatchObject({ target: '< 300 MB', met: 'no' });
    expect(headlineText(headlines(r))).toMatch(/rows\/s at the large size vs the baseline 0\.80× mixpanel \(target >= 0\.85×\)$/);
  });

  it('says when peak RSS could not be read', () => {
    const unknown: StepResults = { formats: [{ format: 'csv', export: { ...results.formats[0]!.export!, peakRssBytes: null } }], imports: [] };
    expect(find(evaluate(unknown, 1_000_000), 'csv: export-source', 'peak RSS')).toMatchObject({ figure: 'unknown', met: '?' });
  });
});

describe('bench tables', () => {
  const rows: Row[] = [
    { step: '1 floor', what: 'rows/s', figure: '500,000', ratio: '', target: '', met: '' },
    { step: '2 export', what: 'vs floor', figure: '', ratio: '0.40×', target: '>= 0.5× floor', met: 'no' },
  ];

  it('aligns the plain-text columns', () => {
    expect(formatTable(rows).split('\n')).toEqual([
      'step      what      figure   ratio  target         met?',
      '--------  --------  -------  -----  -------------  ----',
      '1 floor   rows/s    500,000',
      '2 export  vs floor           0.40×  >= 0.5× floor  no',
    ]);
  });

  it('escapes pipes in Markdown cells', () => {
    const table = markdownTable([{ ...rows[0]!, what: 'a|b' }]);
    expect(table.split('\n')).toEqual(['| step | what | figure | ratio | target | met? |', '| --- | --- | --- | --- | --- | --- |', '| 1 floor | a\\|b | 500,000 |  |  |  |']);
  });
});

describe('BENCHMARKS.md', () => {
  const section = (date: string) =>
    runSection({ date, events: 200_000, command: 'npm run bench -- --events 200000', machine: '2 cores', commit: 'abc1234', rows: [], headlines: headlines(results), notes: ['a note'] });

  it('writes a run section with the command, machine and headline', () => {
    const text = section('2025-01-02T03:04:05.000Z');
    expect(text).toContain('## 2025-01-02 03:04 UTC, 200,000 events');
    expect(text).toContain('- Command: `npm run bench -- --events 200000`');
    expect(text).toContain('- Machine: 2 cores');
    expect(text).toContain('- Headline: worst export-source / floor over 2 formats 0.40× (csv');
    expect(text).toContain('\na note\n');
  });

  it('starts a new file with the header, then puts newer runs above older ones', () => {
    const first = insertSection(null, section('2025-01-01T00:00:00Z'));
    expect(first.startsWith(FILE_HEADER)).toBe(true);
    const second = insertSection(first, section('2025-02-01T00:00:00Z'));
    expect(second.startsWith(FILE_HEADER)).toBe(true);
    expect(second.indexOf('## 2025-02-01')).toBeLessThan(second.indexOf('## 2025-01-01'));
    expect(second.match(/^## /gm)).toHaveLength(2);
  });

  it('keeps a hand-edited header and a header-only file', () => {
    expect(insertSection('# Mine\n\nText.\n\n## old\n', section('2025-01-01T00:00:00Z'))).toMatch(/^# Mine\n\nText\.\n\n## 2025-01-01[\s\S]*\n## old\n$/);
    expect(insertSection('# Only a header\n', section('2025-01-01T00:00:00Z'))).toMatch(/^# Only a header\n\n## 2025-01-01/);
  });
});

describe('the command line as recorded', () => {
  it.each<[string[], string]>([
    [['npm', 'run', 'bench', '--', '--events', '200000'], 'npm run bench -- --events 200000'],
    [['node', 'x.mjs', '--out', 'my file.md'], "node x.mjs --out 'my file.md'"],
    [['--out', "it's.md"], "--out 'it'\\''s.md'"],
  ])('%j', (words, text) => {
    expect(shellQuote(words)).toBe(text);
  });
});
