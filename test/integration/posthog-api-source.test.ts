/**
 * `export-source --from posthog-api` in-process, on the test clock, against a sandbox holding
 * the source project: windows counted then paged under the instance's row cap, split where
 * the execution limit is hit, times in the project's zone turned into UTC, a re-run fetching
 * nothing, and new events reaching the source staged by the next run alone.
 */
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor/doctor.js';
import { stageFromApi } from '../../src/stage-sources/stage-api.js';
import { rangesOf } from '../../src/staging/source-ranges.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { insertEvents } from '../helpers/management-sandbox.js';
import { posthogInput, sendToSandbox, writeMoveConfig, type SourceEvent } from '../helpers/posthog-source.js';
import { recordingReporter } from '../helpers/recording-reporter.js';
import { storedEvents, useSandbox } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { testClock } from '../helpers/test-clock.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxes = useSandbox();
const NOW = Date.UTC(2025, 2, 20, 12);

function uuidOf(n: number): string {
  return `0190a000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** `count` events from 2025-03-01, `stepMinutes` apart; every fifth shares the time of the one before (a tie the cursor must pass). */
function events(count: number, stepMinutes: number, from = 0): SourceEvent[] {
  let at = Date.UTC(2025, 2, 1, 0, 30);
  return Array.from({ length: count }, (_, i) => {
    if (i % 5 !== 4) at += stepMinutes * 60_000;
    const n = from + i;
    return {
      uuid: uuidOf(n),
      event: n % 3 === 0 ? '$autocapture' : 'purchase',
      distinct_id: `user-${n % 7}`,
      timestamp: new Date(at + 123).toISOString(),
      properties: { n, plan: n % 2 === 0 ? 'pro' : 'free', $geoip_city_name: 'Lisbon', $ip: '203.0.113.9', ...(n % 3 === 0 ? { $elements_chain: `button:text="Buy ${n}"` } : {}) },
    };
  });
}

/** The events staged from the windows (not the persons' and groups' updates). */
function stagedEvents(dir: string) {
  return readStagedEvents(`${dir}/migration.db`).filter((e) => !e.source.includes('#'));
}

/** A source event's properties as staging keeps them: `$set_once` nulls dropped (they would lock the property as null). */
function asStaged(properties: Record<string, unknown>): Record<string, unknown> {
  const setOnce = properties.$set_once as Record<string, unknown> | undefined;
  if (setOnce === undefined) return properties;
  return { ...properties, $set_once: Object.fromEntries(Object.entries(setOnce).filter(([, v]) => v !== null)) };
}

interface SourceOptions {
  maxRows?: number;
  maxScannedRows?: number;
  maxEstimatedRows?: number;
  timezone?: string;
  throttle?: Array<{ limit: number; spanMs: number }>;
  gate?: (query: string) => void;
}

async function source(options: SourceOptions = {}) {
  const clock = testClock(NOW);
  const { maxRows, maxScannedRows, maxEstimatedRows, throttle, gate } = options;
  const sandbox = await sandboxes({ now: () => new Date(clock.now()), api: { query: { maxRows, maxScannedRows, maxEstimatedRows, throttle, gate } } });
  const dir = tempDir();
  const config = writeMoveConfig(dir, sandbox);
  if (options.timezone !== undefined) sandbox.store.db.prepare('UPDATE projects SET timezone = ? WHERE id = 1').run(options.timezone);
  return { sandbox, dir, config, clock };
}

describe('export-source --from posthog-api', () => {
  it('stages every event of the window once, paging under the row cap, times in UTC whatever the project zone', async () => {
    const { sandbox, dir, config, clock } = await source({ maxRows: 7, timezone: 'America/New_York' });
    const sent = events(60, 37);
    await sendToSandbox(sandbox, sent);
    const reporter = recordingReporter();
    const result = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-03', NOW), reporter, new AbortController().signal, clock);
    expect(result.ledger).toMatchObject({ failed: 0, pending: 0 });
    expect(result.totals).toMatchObject({ rowsRead: 60, staged: 60, rejected: 0 });
    // A day first; the answers came back small, so the rest of the window in one range.
    expect(result.ranges.map((r) => [r.start, r.end, r.status])).toEqual([
      ['20250301T00', '20250301T23', 'done'],
      ['20250302T00', '20250303T23', 'done'],
    ]);
    const staged = new Map(stagedEvents(dir).map((e) => [e.uuid, e]));
    expect(staged.size).toBe(60);
    const stored = new Map(storedEvents(sandbox, 1).map((e) => [e.uuid, e]));
    for (const e of sent) {
      const row = staged.get(e.uuid)!;
      expect(row).toMatchObject({ event: e.event, distinct_id: e.distinct_id, timestamp: e.timestamp });
      // As the source holds them (its own $geoip_* included), with GeoIP off for the way in.
      const { $geoip_disable, $import_source, $import_run, ...rest } = row.properties;
      expect(rest).toEqual(asStaged(JSON.parse(stored.get(e.uuid)!.properties) as Record<string, unknown>));
      expect([$geoip_disable, $import_source, typeof $import_run]).toEqual([true, 'posthog', 'string']);
    }
    expect(reporter.warnings).toEqual([]);

    const again = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-03', NOW), recordingReporter(), new AbortController().signal, clock);
    expect(again.requests).toBe(0);
  });

  it('halves a window whose query hits the execution limit, and records every hour done', async () => {
    const { sandbox, dir, config, clock } = await source({ maxScannedRows: 20 });
    await sendToSandbox(sandbox, events(60, 37));
    const reporter = recordingReporter();
    const result = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-02', NOW), reporter, new AbortController().signal, clock);
    expect(result.totals).toMatchObject({ staged: 60 });
    expect(result.ranges.some((r) => r.status === 'split')).toBe(true);
    expect(reporter.notices.some((n) => n.includes('execution time limit'))).toBe(true);
    const store = StagingStore.open(`${dir}/migration.db`, { mustExist: true });
    try {
      const ranges = rangesOf(store, result.source);
      expect(ranges.every((r) => r.status === 'done' || r.status === 'empty')).toBe(true);
    } finally {
      store.close();
    }
  });

  it('reads the persons by ranges of distinct ids where PostHog finds a query over the whole table too slow (512); the events are staged', async () => {
    const { sandbox, dir, config, clock } = await source({ maxEstimatedRows: 5 });
    await sendToSandbox(sandbox, events(24, 60));
    const result = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-01', NOW), recordingReporter(), new AbortController().signal, clock);
    expect(result.totals).toMatchObject({ staged: 24 });
    const persons = result.people?.find((p) => p.part === 'persons');
    expect(persons).toMatchObject({ status: 'done' });
    expect(persons!.error).toBeUndefined();
  });

  it('never records a window done when an event arrives while it is paged: the next run reads it again', async () => {
    let pages = 0;
    let late = (): void => undefined;
    const { sandbox, dir, config, clock } = await source({ maxRows: 5, gate: (query) => (query.startsWith('SELECT uuid') && ++pages === 2 ? late() : undefined) });
    late = () => insertEvents(sandbox.store, 1, [{ event: 'late', timestamp: '2025-03-01T23:59:00.000Z' }]);
    await sendToSandbox(sandbox, events(12, 60));
    const first = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-01', NOW), recordingReporter(), new AbortController().signal, clock);
    expect(first.ledger).toMatchObject({ done: 0, failed: 1 });
    expect(first.ranges[0]!.error).toContain('counts 12 events');
    expect(stagedEvents(dir)).toHaveLength(0);
    const again = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-01', NOW), recordingReporter(), new AbortController().signal, clock);
    expect(again.ledger).toMatchObject({ done: 1, failed: 0 });
    expect(stagedEvents(dir)).toHaveLength(13);
  });

  it('waits out the 429s of the query endpoint for as long as its Retry-After says, on the clock', async () => {
    const { sandbox, dir, config, clock } = await source({ maxRows: 5, throttle: [{ limit: 4, spanMs: 60_000 }] });
    await sendToSandbox(sandbox, events(30, 37));
    const reporter = recordingReporter();
    const result = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-01', NOW, { maxRequestsPerHour: 0 }), reporter, new AbortController().signal, clock);
    expect(result.totals).toMatchObject({ staged: 30 });
    expect(result.ledger).toMatchObject({ failed: 0, pending: 0 });
    expect(reporter.notices.some((n) => /HTTP 429.*retrying in \d+ s/.test(n))).toBe(true);
    expect(clock.waits.filter((ms) => ms >= 1000).length).toBeGreaterThan(0);
  });

  it('keeps under the stated limits itself: a run asking more than an hour allows waits, and says how long the rest should take', async () => {
    const { sandbox, dir, config, clock } = await source({ maxRows: 5 });
    await sendToSandbox(sandbox, events(40, 60));
    const reporter = recordingReporter();
    const result = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-02', NOW, { maxRequestsPerHour: 6, hoursPerRequest: 12 }), reporter, new AbortController().signal, clock);
    expect(result.totals).toMatchObject({ staged: 40 });
    expect(clock.waits.some((ms) => ms > 60_000)).toBe(true);
    expect(reporter.progressLines.some((line) => /waiting .* for PostHog's rate limit \(\d+ of 48 hours done, about \S+ left\)/.test(line))).toBe(true);
  });

  it('a second run after new events reach the source stages only those', async () => {
    const { sandbox, dir, config, clock } = await source();
    await sendToSandbox(sandbox, events(20, 60));
    const first = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-01', NOW), recordingReporter(), new AbortController().signal, clock);
    expect(first.totals).toMatchObject({ staged: 20 });
    const later = events(10, 60, 1000).map((e) => ({ ...e, timestamp: e.timestamp.replace('2025-03-01', '2025-03-05') }));
    await sendToSandbox(sandbox, later);
    const second = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-05', NOW), recordingReporter(), new AbortController().signal, clock);
    expect(second.totals).toMatchObject({ staged: 10, rowsRead: 10 });
    expect(stagedEvents(dir)).toHaveLength(30);
  });
});

describe('export-source --from posthog-api: persons and groups', () => {
  it("stages each person's properties on one id with a link from each other id, and each group by type name", async () => {
    const { sandbox, dir, config, clock } = await source({ maxRows: 3 });
    const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 9, minute)).toISOString();
    await sendToSandbox(sandbox, [
      { uuid: uuidOf(1), event: '$pageview', distinct_id: 'anon-1', timestamp: at(1), properties: {} },
      { uuid: uuidOf(2), event: '$identify', distinct_id: 'ada', timestamp: at(2), properties: { $anon_distinct_id: 'anon-1', $set: { email: 'ada@example.com', plan: 'pro' } } },
      { uuid: uuidOf(3), event: '$identify', distinct_id: 'bob', timestamp: at(3), properties: { $set: { email: 'bob@example.com' } } },
      { uuid: uuidOf(4), event: '$groupidentify', distinct_id: 'ada', timestamp: at(4), properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', seats: 12 } } },
      { uuid: uuidOf(5), event: '$groupidentify', distinct_id: 'ada', timestamp: at(5), properties: { $group_type: 'team', $group_key: 'red', $group_set: { name: 'Red' } } },
      { uuid: uuidOf(6), event: 'purchase', distinct_id: 'bob', timestamp: at(6), properties: { $groups: { company: 'acme' } } },
    ]);
    const result = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-01', NOW), recordingReporter(), new AbortController().signal, clock);
    expect(result.people?.map((p) => [p.part, p.status])).toEqual([
      ['persons', 'done'],
      ['groups:company', 'done'],
      ['groups:team', 'done'],
    ]);
    const staged = readStagedEvents(`${dir}/migration.db`).filter((e) => e.source.includes('#'));
    const identifies = staged.filter((e) => e.event === '$identify').map((e) => [e.distinct_id, e.properties.$anon_distinct_id ?? null, e.properties.$set]);
    expect(identifies).toEqual(
      expect.arrayContaining([
        ['ada', null, expect.objectContaining({ email: 'ada@example.com', plan: 'pro' })],
        ['ada', 'anon-1', {}],
        ['bob', null, expect.objectContaining({ email: 'bob@example.com' })],
      ]),
    );
    const groups = staged.filter((e) => e.event === '$groupidentify').map((e) => [e.properties.$group_type, e.properties.$group_key, e.properties.$group_set]);
    expect(groups).toEqual([
      ['company', 'acme', { name: 'Acme', seats: 12 }],
      ['team', 'red', { name: 'Red' }],
    ]);

    // The next run reads them again and stages nothing new.
    await clock.sleep(1000);
    const again = await stageFromApi(posthogInput(dir, config, '2025-03-01', '2025-03-01', NOW), recordingReporter(), new AbortController().signal, clock);
    expect(again.people?.map((p) => [p.part, p.staged])).toEqual([
      ['persons', 0],
      ['groups:company', 0],
      ['groups:team', 0],
    ]);
  });
});

describe('doctor --project old (a source)', () => {
  it('says the key reads the project, may query it, and what the window holds; a key without query:read is a problem', async () => {
    const { sandbox, dir, config, clock } = await source();
    await sendToSandbox(sandbox, [
      ...events(12, 60),
      { uuid: uuidOf(500), event: '$identify', distinct_id: 'ada', timestamp: '2025-03-01T09:00:00.000Z', properties: { $anon_distinct_id: 'anon-9', $set: { plan: 'pro' } } },
      { uuid: uuidOf(501), event: '$groupidentify', distinct_id: 'ada', timestamp: '2025-03-01T09:00:00.000Z', properties: { $group_type: 'company', $group_key: 'acme', $group_set: {} } },
    ]);
    const report = await runDoctor({ project: 'old', config, staging: `${dir}/none.db`, start: '2025-03-01', end: '2025-03-01' }, recordingReporter(), new AbortController().signal, clock);
    expect(report.checks.map((c) => [c.check, c.verdict])).toEqual([
      ['source-project', 'ok'],
      ['source-query', 'ok'],
      ['source-data', 'ok'],
    ]);
    expect(report.checks[2]!.details).toEqual({ events: 14, persons: 8, distinctIds: 9, groups: 1 });

    const noQuery = writeMoveConfig(tempDir(), sandbox, undefined, 'owner-no-query');
    const refused = await runDoctor({ project: 'old', config: noQuery, staging: `${dir}/none.db` }, recordingReporter(), new AbortController().signal, clock);
    expect(refused.checks.find((c) => c.check === 'source-query')).toMatchObject({ verdict: 'problem', fix: expect.stringContaining('query:read') });
  });
});
