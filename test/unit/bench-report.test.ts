import { describe, expect, it } from 'vitest';
import { evaluate, FILE_HEADER, formatTable, headlines, insertSection, markdownTable, runSection, shellQuote, type Row, type StepResults } from '../../bench/lib/bench-report.mjs';

const MB = 1e6;
const results: StepResults = {
  floor: { rows: 1_000_000, wallMs: 2_000, peakRssBytes: 80 * MB },
  export: { rows: 1_000_000, wallMs: 5_000, peakRssBytes: 150 * MB, stagingBytes: 250 * MB, csvBytes: 173 * MB },
  import: { events: 1_000_000, staged: 1_000_000, counted: 1_000_000, wireBytes: 43 * MB, requests: 1_000, wallMs: 4_000, peakRssBytes: 320 * MB },
  peer: { events: 200_000, counted: 200_000, bytesSent: 8 * MB, requests: 200, wallMs: 20_000, peakRssBytes: 400 * MB },
  status: { stagedEvents: 1_000_000, afterImport: true, wallMs: 300, peakRssBytes: 60 * MB },
};

const find = (rows: Row[], step: string, what: string): Row => {
  const row = rows.find((r) => r.step.endsWith(step) && r.what.startsWith(what));
  if (!row) throw new Error(`no row ${step} ${what}`);
  return row;
};

describe('bench evaluation', () => {
  it('computes the headline ratios from rates, not totals', () => {
    // export 200k rows/s over a floor of 500k; import 250k events/s over a peer of 10k on a prefix.
    const h = headlines(results);
    expect(h.exportVsFloor).toBeCloseTo(0.4);
    expect(h.importVsPeer).toBeCloseTo(25);
  });

  it('has no ratio when a side did not run', () => {
    expect(headlines({ export: results.export })).toEqual({ exportVsFloor: null, importVsPeer: null });
    expect(find(evaluate({ import: results.import }, 1_000_000), 'import', 'vs peer')).toMatchObject({ ratio: 'n/a (peer not run)', met: '?' });
  });

  it.each<[string, string, string, string]>([
    ['export-source', 'rows/s', '200,000 (5.00 s)', 'yes'],
    ['export-source', 'vs floor', '', 'no'],
    ['export-source', 'staging file', '250.0 MB (CSV 173.0 MB)', 'yes'],
    ['export-source', 'peak RSS', '150.0 MB', 'yes*'],
    ['import', 'events/s', '250,000 (4.00 s)', 'yes'],
    ['import', 'vs peer', '', 'yes'],
    ['import', 'peak RSS', '320.0 MB', 'no'],
    ['import', 'counted by sandbox', '1,000,000 of 1,000,000', 'yes'],
    ['posthog-node', 'events/s', '10,000 (20.00 s, first 200,000 events)', ''],
    ['status', 'latency', '0.30 s', 'yes*'],
  ])('%s %s: %s, met %s', (step, what, figure, met) => {
    const row = find(evaluate(results, 1_000_000), step, what);
    if (figure !== '') expect(row.figure).toBe(figure);
    expect(row.met).toBe(met);
  });

  it('drops the asterisk at the size the targets are set at', () => {
    const rows = evaluate(results, 5_000_000);
    expect(find(rows, 'export-source', 'peak RSS').met).toBe('yes');
    expect(find(rows, 'status', 'latency').met).toBe('yes');
  });

  it('flags a sandbox that counted fewer events than were staged', () => {
    const short = { ...results, import: { ...results.import!, counted: 999_000 } };
    expect(find(evaluate(short, 1_000_000), 'import', 'counted').met).toBe('no');
  });

  it('says when peak RSS could not be read', () => {
    const unknown = { export: { ...results.export!, peakRssBytes: null } };
    expect(find(evaluate(unknown, 1_000_000), 'export-source', 'peak RSS')).toMatchObject({ figure: 'unknown', met: '?' });
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
    runSection({ date, events: 200_000, command: 'npm run bench -- --events 200000', machine: '2 cores', commit: 'abc1234', rows: [], headlines: { exportVsFloor: 0.5, importVsPeer: null }, notes: ['a note'] });

  it('writes a run section with the command, machine and headline', () => {
    const text = section('2025-01-02T03:04:05.000Z');
    expect(text).toContain('## 2025-01-02 03:04 UTC, 200,000 events');
    expect(text).toContain('- Command: `npm run bench -- --events 200000`');
    expect(text).toContain('- Machine: 2 cores');
    expect(text).toContain('export-source / csv-parse floor 0.50× (target >= 0.5×); import / posthog-node n/a');
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
