import { describe, expect, it } from 'vitest';
import { DEFAULT_EVENTS, DEFAULT_PEER_EVENTS, FORMATS, parseBenchArgs, parseCount, STEPS } from '../../bench/lib/bench-args.mjs';

describe('bench event counts', () => {
  it.each<[string, number | undefined]>([
    ['200000', 200_000],
    ['5_000_000', 5_000_000],
    ['1,000,000', 1_000_000],
    ['200k', 200_000],
    ['5M', 5_000_000],
    ['20m', 20_000_000],
    ['1.5m', 1_500_000],
    ['0', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['lots', undefined],
    ['', undefined],
  ])('%s -> %s', (text, expected) => {
    expect(parseCount(text)).toBe(expected);
  });
});

describe('bench arguments', () => {
  it('defaults to one million events, every step and format, a peer prefix and BENCHMARKS.md', () => {
    expect(parseBenchArgs([])).toEqual({
      options: { events: DEFAULT_EVENTS, peerEvents: DEFAULT_PEER_EVENTS, steps: STEPS, formats: FORMATS, baselineEvents: null, keep: false, out: 'BENCHMARKS.md' },
    });
  });

  it.each<[string[], Record<string, unknown>]>([
    [['--events', '200000'], { events: 200_000, peerEvents: 200_000 }],
    [['--events=50000'], { events: 50_000, peerEvents: 50_000 }],
    [['--events', '5m'], { events: 5_000_000, peerEvents: DEFAULT_PEER_EVENTS }],
    [['--events', '20m', '--formats', 'mixpanel,amplitude'], { events: 20_000_000, formats: ['mixpanel', 'amplitude'], baselineEvents: DEFAULT_EVENTS }],
    [['--events', '1m'], { baselineEvents: null }],
    [['--events', '400k', '--baseline', '100k'], { baselineEvents: 100_000 }],
    [['--events', '20m', '--baseline', 'none'], { baselineEvents: null }],
    [['--events', '1m', '--peer-events', '300k'], { peerEvents: 300_000 }],
    [['--only', 'import,export'], { steps: ['export', 'import'] }],
    [['--only', ' status '], { steps: ['status'] }],
    [['--formats', 'posthog,mixpanel'], { formats: ['mixpanel', 'posthog'] }],
    [['--formats=csv-nested'], { formats: ['csv-nested'] }],
    [['--keep'], { keep: true }],
    [['--out', 'x.md'], { out: 'x.md' }],
    [['--no-write'], { out: null }],
  ])('%j', (argv, expected) => {
    const parsed = parseBenchArgs(argv);
    expect(parsed).toHaveProperty('options');
    expect((parsed as { options: object }).options).toMatchObject(expected);
  });

  it.each<[string[], RegExp]>([
    [['--events'], /--events needs a value/],
    [['--events', 'many'], /--events many: expected a positive whole number/],
    [['--events', '1000', '--peer-events', '2000'], /more than --events/],
    [['--only', 'export,upload'], /unknown step upload/],
    [['--only', ','], /at least one step/],
    [['--formats', 'parquet'], /--formats: unknown format parquet/],
    [['--out', 'a.md', '--no-write'], /exclude each other/],
    [['--events', '1m', '--baseline', '1m'], /--baseline 1000000 is not less than --events 1000000/],
    [['--events', '5m', '--baseline', 'half'], /--baseline half: expected a positive whole number or none/],
    [['--fast'], /unknown argument --fast/],
    [['--keep=yes'], /unknown argument --keep=yes/],
  ])('%j is refused', (argv, message) => {
    const parsed = parseBenchArgs(argv);
    expect('error' in parsed && parsed.error).toMatch(message);
  });

  it.each([['--help'], ['-h'], ['--events', '5', '--help']])('%s asks for help', (...argv) => {
    expect(parseBenchArgs(argv)).toEqual({ help: true });
  });
});
