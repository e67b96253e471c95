/** The table of delivery options: flags, recorded settings, resume's merge and the resolved settings all come from it. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { givenSettings, deliveryFlags } from '../../src/cli/options/delivery-flags.js';
import { DELIVERY_OPTIONS, mergeSettings, recordedSettings, resolveSettings, retryPolicy } from '../../src/delivery/delivery-options.js';

/** Parses `args` with the delivery flags, as import and resume declare them, without running anything. */
function parse(args: string[]): Command {
  const command = deliveryFlags(new Command('test').exitOverride());
  return command.parse(args, { from: 'user' });
}

describe('DELIVERY_OPTIONS', () => {
  it('keys each option by the name commander gives its flag (and existing staging files recorded)', () => {
    const names = deliveryFlags(new Command('test')).options.map((o) => o.attributeName());
    expect(names).toEqual(DELIVERY_OPTIONS.map((o) => o.key));
  });

  it('resolves to the defaults, with no rate limit on loopback only', () => {
    expect(resolveSettings('http://127.0.0.1:8010', {})).toEqual({
      chunkEvents: 1000,
      chunkBytes: 2 * 1024 * 1024,
      concurrency: 4,
      maxRate: 0,
      requestTimeoutMs: 60_000,
      interruptGraceMs: 10_000,
      retryInitialMs: 500,
      retryMaxDelayMs: 30_000,
      retryBudgetMs: 300_000,
      maxDeadLetters: 100,
      gzip: true,
      peopleLast: false,
      includeRecent: false,
    });
    expect(resolveSettings('https://us.i.posthog.com', {}).maxRate).toBe(2000);
    expect(retryPolicy(resolveSettings('https://us.i.posthog.com', { retryBudgetMs: 7 }))).toEqual({ initialDelayMs: 500, maxDelayMs: 30_000, maxTotalWaitMs: 7 });
  });

  it('refuses a value over its bound, naming the flag', () => {
    expect(() => resolveSettings('https://us.i.posthog.com', { chunkBytes: 17 * 1024 * 1024 })).toThrow('--chunk-bytes 17825792: at most 16777216 (PostHog refuses bodies over 20 MB)');
  });
});

describe('argv -> given settings', () => {
  it.each<[string, string[], Record<string, unknown>]>([
    ['nothing typed', [], {}],
    ['numbers', ['--chunk-events', '500', '--max-rate', '0'], { chunkEvents: 500, maxRate: 0 }],
    ['--no-gzip', ['--no-gzip'], { gzip: false }],
    ['--people-last and --include-recent', ['--people-last', '--include-recent'], { peopleLast: true, includeRecent: true }],
    ['retry options', ['--retry-initial-ms', '1', '--retry-max-delay-ms', '5', '--retry-budget-ms', '60000'], { retryInitialMs: 1, retryMaxDelayMs: 5, retryBudgetMs: 60_000 }],
  ])('%s', (_name, args, expected) => {
    expect(givenSettings(parse(args))).toEqual(expected);
  });

  it.each([
    [['--chunk-events', '0'], '--chunk-events must be an integer >= 1'],
    [['--chunk-bytes', '1000'], '--chunk-bytes must be an integer >= 1024'],
    [['--concurrency', 'many'], '--concurrency must be an integer >= 1'],
  ])('%j is refused', (args, message) => {
    expect(() => parse(args)).toThrow(message);
  });
});

describe('recorded settings and resume', () => {
  it('keeps only known keys of the right type', () => {
    expect(recordedSettings({ chunkEvents: 10, gzip: false, maxRate: '5', apiKey: 'phc_secret', concurrency: true })).toEqual({ chunkEvents: 10, gzip: false });
  });

  it('lets what is given now override what the run recorded', () => {
    expect(mergeSettings({ chunkEvents: 10, concurrency: 2, gzip: false }, { concurrency: 8 })).toEqual({ chunkEvents: 10, concurrency: 8, gzip: false });
  });
});
