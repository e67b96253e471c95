/**
 * stageFromApi in-process, on the test clock (nothing sleeps): Mixpanel's rate limit is a wait
 * shown on the progress line, not an error, and a re-run starts with the requests the last one
 * made; Ctrl-C, or an error escaping to the process, puts the range in flight back to pending; the end of the window is capped at
 * what has settled; import undoes a range a killed run left half fetched before it sends.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError, RemoteError } from '../../src/errors.js';
import { openForImport } from '../../src/import/import-target.js';
import { stageFromApi, type StageApiInput } from '../../src/stage-sources/stage-api.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { addPendingRanges, markFetching, rangesOf } from '../../src/staging/source-ranges.js';
import { beginRead, finishRead } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { startMixpanelStandin, type MixpanelStandin } from '../helpers/mixpanel-api-standin.js';
import { recordingReporter } from '../helpers/recording-reporter.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { MIXPANEL_SECRET, mixpanelTarget } from '../helpers/source-api-cli.js';
import { testClock } from '../helpers/test-clock.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const PROJECT = '271828';
const USER = 'sa.user';
const NOW = Date.UTC(2025, 5, 20, 12);

/** The ledger's days and their states. */
function dayStatuses(staging: string): Array<[string, string]> {
  const store = StagingStore.open(staging);
  try {
    return rangesOf(store, `mixpanel-api:${PROJECT}`).map((r) => [r.start, r.status]);
  } finally {
    store.close();
  }
}

const standins: MixpanelStandin[] = [];
afterEach(async () => {
  for (const s of standins.splice(0)) await s.close();
});

function days(from: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => new Date(Date.UTC(2025, 5, from + i)).toISOString().slice(0, 10));
}

async function setup(dayNames: string[]) {
  const events = Object.fromEntries(dayNames.map((day) => [day, [{ event: 'Signed Up', properties: { time: Date.parse(`${day}T10:00:00Z`), distinct_id: 'u1', $insert_id: `i-${day}` } }]]));
  const standin = await startMixpanelStandin({ projectId: PROJECT, username: USER, secret: MIXPANEL_SECRET, days: events });
  standins.push(standin);
  const target = mixpanelTarget(tempDir(), standin.url, PROJECT, USER);
  const input = (start: string, end: string, extra: Partial<StageApiInput> = {}): StageApiInput => ({
    api: 'mixpanel-api',
    staging: target.staging,
    config: target.config,
    env: target.env,
    start,
    end,
    nowMs: NOW,
    readerOptions: {},
    rules: { nowMs: NOW },
    recordedOptions: { timezone: 'UTC' },
    workers: 0,
    concurrency: 1,
    idleTimeoutMs: 10_000,
    retryPolicy: { initialDelayMs: 1, maxDelayMs: 5, maxTotalWaitMs: 1000 },
    ...extra,
  });
  return { standin, target, input };
}

describe('stageFromApi', () => {
  it("waits for Mixpanel's rate limit on the clock and says so; a re-run counts the requests the last one made", async () => {
    const dayNames = days(1, 4);
    const { standin, input } = await setup(dayNames);
    const clock = testClock(NOW);
    const reporter = recordingReporter();
    const result = await stageFromApi(input(dayNames[0]!, dayNames[3]!, { maxRequestsPerHour: 2 }), reporter, new AbortController().signal, clock);
    expect(result.ledger).toEqual({ done: 4, empty: 0, failed: 0, pending: 0 });
    expect(standin.days()).toEqual(dayNames);
    // Two requests in the first hour, the next two an hour later: one wait of an hour (less
    // the pace's spacing of the requests before it, a third of a second each).
    const long = clock.waits.filter((ms) => ms > 1000);
    expect(long).toHaveLength(1);
    expect(long[0]).toBeGreaterThan(3_599_000);
    expect(reporter.progressLines.some((line) => line.startsWith("waiting 59m59s for Mixpanel's rate limit (2 of 4 days done"))).toBe(true);
    expect(reporter.warnings).toEqual([]);

    // Right after, two more days: the requests of the last hour are counted, so the first waits.
    const more = days(5, 2);
    const next = await setup(more);
    const again = recordingReporter();
    await stageFromApi({ ...input(more[0]!, more[1]!, { maxRequestsPerHour: 2 }), config: next.target.config }, again, new AbortController().signal, clock);
    // (A second, short wait follows: the window's two requests went a third of a second apart.)
    expect(again.progressLines.filter((line) => /^waiting \d+(h|m)/.test(line))).toHaveLength(1);
    expect(clock.waits.filter((ms) => ms > 1000)).toHaveLength(2);
  });

  it("honours a 429's Retry-After on the clock", async () => {
    const dayNames = days(1, 1);
    const { standin, input } = await setup(dayNames);
    standin.inject(dayNames[0]!, { type: 'answer', status: 429, headers: { 'retry-after': '41' }, body: JSON.stringify({ error: 'too many requests' }) });
    const clock = testClock(NOW);
    const reporter = recordingReporter();
    await stageFromApi(input(dayNames[0]!, dayNames[0]!, { retryPolicy: { initialDelayMs: 1000, maxDelayMs: 60_000, maxTotalWaitMs: 600_000 } }), reporter, new AbortController().signal, clock);
    expect(clock.waits).toContain(41_000);
    expect(reporter.notices).toContain(`Mixpanel ${dayNames[0]}: HTTP 429: too many requests; retrying in 41 s`);
  });

  it('slows its requests down in a storm of 429s, past what the limits allow, and stages every event once', async () => {
    const dayNames = days(1, 6);
    const { standin, input, target } = await setup(dayNames);
    const refused = { type: 'answer', status: 429, body: JSON.stringify({ error: 'too many requests' }) } as const;
    standin.inject(dayNames[2]!, ...Array.from({ length: 8 }, () => refused));
    // When each request went, on the clock: the clock moves only in waits, so a request logged
    // by the next wait went before it.
    const sentAtMs: number[] = [];
    const clock = testClock(NOW, (ms) => {
      while (sentAtMs.length < standin.requests.length) sentAtMs.push(clock.now() - ms);
    });
    const policy = { initialDelayMs: 1, maxDelayMs: 5, maxTotalWaitMs: 600_000 };
    const result = await stageFromApi(input(dayNames[0]!, dayNames[5]!, { retryPolicy: policy }), recordingReporter(), new AbortController().signal, clock);
    expect(result.ledger).toEqual({ done: 6, empty: 0, failed: 0, pending: 0 });
    expect(standin.requests).toHaveLength(6 + 8);
    expect(new Set(readStagedEvents(target.staging).map((e) => e.uuid)).size).toBe(6);
    // Mixpanel's limits alone allow 3 a second and retries come after at most 5 ms; the pace
    // spaces the refused day's attempts ever further apart as the 429s go on.
    const gaps = sentAtMs.slice(3, 11).map((at, i) => at - sentAtMs[2 + i]!);
    expect(gaps.at(-1)).toBeGreaterThan(1000);
    expect(gaps.at(-1)).toBeGreaterThan(3 * gaps[0]!);
    console.log(`429 storm: gaps between the refused day's attempts ${gaps.map((g) => Math.round(g)).join(', ')} ms`);
  });

  it('caps the end of the window at the last day settled a day ago, and says so', async () => {
    const dayNames = days(17, 3); // June 17 to 19; now is June 20, 12:00 UTC
    const { standin, input } = await setup(dayNames);
    const reporter = recordingReporter();
    const result = await stageFromApi(input('2025-06-17', '2025-07-31'), reporter, new AbortController().signal, testClock(NOW));
    expect(result.window).toEqual({ start: '2025-06-17', end: '2025-06-18', cappedFrom: '2025-07-31' });
    expect(standin.days()).toEqual(['2025-06-17', '2025-06-18']);
    expect(reporter.notices[0]).toContain('--end 2025-07-31 is later than the last day settled for a day; fetching up to 2025-06-18');
  });

  it('puts the range in flight back to pending when interrupted, with nothing of it staged', async () => {
    const dayNames = days(1, 3);
    const { standin, input, target } = await setup(dayNames);
    standin.inject(dayNames[1]!, { type: 'stall' });
    const controller = new AbortController();
    const running = stageFromApi(input(dayNames[0]!, dayNames[2]!), recordingReporter(), controller.signal, testClock(NOW));
    await standin.stalled();
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(InterruptedError);
    expect(dayStatuses(target.staging)).toEqual([
      [dayNames[0], 'done'],
      [dayNames[1], 'pending'],
      [dayNames[2], 'pending'],
    ]);
  });

  it('an error escaping to the process mid-fetch stops the run in words: the range in flight pending, no spool file left', async () => {
    const dayNames = days(1, 3);
    const { standin, input, target } = await setup(dayNames);
    standin.inject(dayNames[1]!, { type: 'stall' });
    const failure = new AbortController();
    const running = stageFromApi(input(dayNames[0]!, dayNames[2]!), recordingReporter(), new AbortController().signal, testClock(NOW), undefined, failure.signal);
    await standin.stalled();
    // What the shell's guard does with an error thrown inside the HTTP client's socket handling.
    failure.abort(Object.assign(new Error('assert(!this.paused)'), { name: 'AssertionError' }));
    const error = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RemoteError);
    expect((error as Error).message).toBe('the fetch stopped on an unexpected failure (AssertionError: assert(!this.paused)); the ranges being fetched were undone, nothing of them is staged');
    expect(existsSync(`${target.staging}.fetch`)).toBe(false);
    expect(dayStatuses(target.staging)).toEqual([
      [dayNames[0], 'done'],
      [dayNames[1], 'pending'],
      [dayNames[2], 'pending'],
    ]);
  });
});

describe('import after a killed source API run', () => {
  it('undoes the range left half fetched before anything is sent', async () => {
    const staging = join(tempDir(), 'migration.db');
    const store = StagingStore.open(staging, { lockFor: 'export-source' });
    const source = 'amplitude-api:0123456789ab';
    addPendingRanges(store, source, [{ start: '20250901T00', end: '20250901T23' }], new Date(NOW).toISOString());
    markFetching(store, rangesOf(store, source)[0]!.id);
    // One file of the range staged completely, the next never reached: the run was killed.
    const path = `${source}:20250901T00-20250901T23!187520_2025-09-01_9#0.json.gz`;
    const readId = beginRead(store, { path, format: 'amplitude', command: 'export-source', sizeBytes: 10, options: {} });
    new EventWriter(store).write(readId, [{ line: 1, raw: '{}', event: { uuid: Buffer.alloc(16, 7), kind: 0, event: 'e', distinctId: 'd', timestampMs: NOW, propertiesJson: '{}' } }]);
    finishRead(store, readId, { rowsRead: 1, staged: 1, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 }, undefined);
    store.close();

    const reporter = recordingReporter();
    const reopened = openForImport(staging, 'import', reporter);
    try {
      expect(reopened.db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 0 });
      expect(rangesOf(reopened, source)[0]).toMatchObject({ status: 'pending', error: 'interrupted' });
      expect(reporter.warnings).toEqual([`note: ${source}:20250901T00-20250901T23 was interrupted while being fetched; its rows were removed (export-source fetches it again)`]);
    } finally {
      reopened.close();
    }
  });
});
