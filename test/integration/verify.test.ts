/**
 * The verify use case in-process (the built modules: re-sending runs the chunk reader's worker)
 * against a real sandbox: events lost after PostHog accepted them are found day by day, re-sent
 * exactly, and nothing lands twice with different content; the `$import_run` count, events of
 * other sources, paging, throttling and the scope error.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeRequest } from '../../src/sandbox/api/api-throttle.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { silentReporter } from '../../src/reporter.js';
import { openDatabase } from '../../src/sqlite/database.js';
import { uuidText } from '../../src/events/stable-uuid.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { dayOf } from '../../src/verify/utc-day.js';
import { recordingReporter } from '../helpers/recording-reporter.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox } from '../helpers/sandbox.js';
import { FAST, SAMPLE_EVENTS, readStaging, stageSample } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { writeVerifyConfig } from '../helpers/verify-config.js';
import { testClock } from '../helpers/test-clock.js';

const built = (path: string) => import(join(REPO_ROOT, 'dist', path));
const { verifyProject } = (await built('verify/verify-project.js')) as typeof import('../../src/verify/verify-project.js');
const builtErrors = (await built('errors.js')) as typeof import('../../src/errors.js');
type VerifyInput = import('../../src/verify/verify-project.js').VerifyInput;

const running = (): AbortSignal => new AbortController().signal;

/** Removes every `step`-th stored event of project 1 (as a loss after the 200 would); returns the missing count per UTC day. */
function loseEvents(sandbox: RunningSandbox, step: number): Map<string, number> {
  const lost = sandbox.store.db.prepare('DELETE FROM events WHERE team_id = 1 AND id % ? = 0 RETURNING timestamp').all(step) as Array<{ timestamp: string }>;
  const byDay = new Map<string, number>();
  for (const { timestamp } of lost) byDay.set(timestamp.slice(0, 10), (byDay.get(timestamp.slice(0, 10)) ?? 0) + 1);
  return byDay;
}

function shortRows(result: { rows: Array<{ day: string; missing: number }> }): Map<string, number> {
  return new Map(result.rows.filter((r) => r.missing > 0).map((r) => [r.day, r.missing]));
}

/** Every copy of a uuid PostHog holds has the same content. */
function expectNoConflictingCopies(sandbox: RunningSandbox): void {
  const byUuid = new Map<string, string>();
  for (const e of storedEvents(sandbox, 1)) {
    const content = JSON.stringify([e.event, e.distinct_id, e.timestamp, e.properties]);
    expect(byUuid.get(e.uuid) ?? content, e.uuid).toBe(content);
    byUuid.set(e.uuid, content);
  }
  expect(byUuid.size).toBe(SAMPLE_EVENTS);
}

describe('verify', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  async function imported(options: Parameters<typeof sandboxAt>[0] = {}) {
    const sandbox = await sandboxAt(options);
    const dir = tempDir();
    const config = writeVerifyConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const input: VerifyInput = { staging, config, project: 'test', byEvent: false, waitMs: 0, resendMissing: false };
    return { sandbox, dir, config, staging, input };
  }

  it('finds exactly the days and counts lost after the 200, re-sends only those, then finds everything', async () => {
    const { sandbox, staging, input } = await imported();
    // As a file staged before $import_run existed: landed events are found by their uuids.
    const db = openDatabase(staging);
    db.prepare("DELETE FROM meta WHERE key = 'import_run'").run();
    db.close();
    expect((await verifyProject(input, silentReporter, running())).summary).toMatchObject({ complete: true, missing: 0, days: 42 });
    const lost = loseEvents(sandbox, 20);
    const missing = [...lost.values()].reduce((a, b) => a + b, 0);

    const short = await verifyProject(input, silentReporter, running(), { pageRows: 700 });
    expect(short.method).toBe('uuids');
    expect(shortRows(short)).toEqual(lost);
    expect(short.rows.slice(0, lost.size).every((r) => r.missing > 0)).toBe(true);
    expect(short.summary).toMatchObject({ complete: false, shortDays: lost.size, missing, totals: { delivered: SAMPLE_EVENTS, landed: SAMPLE_EVENTS - missing } });
    expect(short.queries).toBe(5); // 3,000 uuids in pages of 700

    const repaired = await verifyProject({ ...input, resendMissing: true }, silentReporter, running());
    expect(repaired.resend).toMatchObject({ requeued: missing, days: [...lost.keys()].sort(), run: { outcome: 'done', delivered: missing } });
    const requeued = readStaging(staging, (db) => db.prepare('SELECT count(*) AS n, min(run_id) AS run FROM requeued_events').get()) as { n: number; run: number };
    expect(requeued).toEqual({ n: missing, run: repaired.resend!.runId });

    const after = await verifyProject(input, silentReporter, running());
    expect(after.summary).toMatchObject({ complete: true, missing: 0, totals: { delivered: SAMPLE_EVENTS, landed: SAMPLE_EVENTS } });
    expect(after.figures.requeued).toBe(missing);
    expect(storedEvents(sandbox, 1)).toHaveLength(SAMPLE_EVENTS);
    expectNoConflictingCopies(sandbox);
  });

  it('counts staged uuids, not $import_run: events of other sources are not counted, by day and event', async () => {
    const { sandbox, staging, input } = await imported();
    const db = openDatabase(staging);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'import_run'").run("run-o'7");
    db.close();
    sandbox.store.db.prepare("UPDATE events SET properties = json_set(properties, '$.$import_run', ?) WHERE team_id = 1").run("run-o'7");
    sandbox.store.db
      .prepare(
        "INSERT INTO events (team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint, received_at) VALUES (1, ?, 'signed_up', 'other', '2025-09-03T10:00:00.000Z', '{}', 0, '/e/', '2025-09-03T10:00:00.000Z')",
      )
      .run('01930000-0000-7000-8000-00000000f00d');
    const lost = sandbox.store.db.prepare("DELETE FROM events WHERE team_id = 1 AND event = 'signed_up' AND id % 3 = 0 RETURNING timestamp").all() as Array<{ timestamp: string }>;
    const result = await verifyProject({ ...input, byEvent: true }, silentReporter, running());
    expect(result).toMatchObject({ method: 'uuids', importRun: "run-o'7", queries: 1 });
    const short = result.rows.filter((r) => r.missing > 0);
    expect(short.every((r) => r.event === 'signed_up')).toBe(true);
    expect(short.reduce((sum, r) => sum + r.missing, 0)).toBe(lost.length);
    expect(result.summary.totals.landed).toBe(SAMPLE_EVENTS - lost.length);
  });

  // One import for three refusals and the throttled query (last: it spends the key's query allowance on the test's clock).
  it('refuses a key without query:read naming the scope, a project that received nothing, and re-sending while an import is unfinished; waits out a throttled query as PostHog asks', async () => {
    const clock = testClock(Date.UTC(2026, 2, 1));
    const { sandbox, dir, config, staging, input } = await imported({ now: () => new Date(clock.now()) });
    const noQuery = writeVerifyConfig(dir, sandbox, 'owner-no-query');
    const error = await verifyProject({ staging, config: noQuery, project: 'test', byEvent: false, waitMs: 0, resendMissing: false }, silentReporter, running()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(builtErrors.AuthError);
    expect((error as Error).message).toMatch(/^the personal API key lacks the scope 'query:read' \(403\), answered by 127\.0\.0\.1:\d+$/);

    await expect(verifyProject({ ...input, project: 'prod' }, silentReporter, running())).rejects.toThrow(/nothing from .* was delivered to project "prod" yet/);
    const sample = await runCli(['import', '--project', 'prod', '--sample', '100', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(sample.code, sample.stderr).toBe(0);
    const partial = await verifyProject({ ...input, project: 'prod' }, silentReporter, running());
    expect(partial.summary).toMatchObject({ complete: true, totals: { delivered: 100, pending: SAMPLE_EVENTS - 100 } });
    sandbox.store.db.prepare('DELETE FROM events WHERE team_id = 2 AND id = (SELECT min(id) FROM events WHERE team_id = 2)').run();
    await expect(verifyProject({ ...input, project: 'prod', resendMissing: true }, silentReporter, running())).rejects.toThrow(
      /2,900 staged events of project "prod" were never delivered; --resend-missing re-sends only events PostHog accepted and lost/,
    );

    const { id } = sandbox.store.db.prepare("SELECT id FROM personal_api_keys WHERE label = 'owner-all'").get() as { id: string };
    for (let i = 0; i < 480; i++) takeRequest(sandbox.store, id, clock.now());
    const reporter = recordingReporter();
    const result = await verifyProject(input, reporter, running(), { clock });
    expect(result.summary.complete).toBe(true);
    expect(clock.waits[0]).toBeGreaterThanOrEqual(60_000);
    expect(reporter.warnings[0]).toMatch(/PostHog is throttling queries; waiting \d+ s as it asks/);
  });

  // The sandbox's own fault: it answers 200 and drops 5% of the accepted events, as a pipeline
  // loss would. The fault also drops a share of what is re-sent, so repairing takes a few rounds.
  it('finds exactly the days and counts `--lose-after-accept 0.05` lost, and repairs them', async () => {
    const { sandbox, staging, input } = await imported({ capture: { faults: { loseAfterAccept: 0.05 }, random: seededRandom(5) } });
    const stagedDay = new Map(
      readStaging(staging, (db) => db.prepare('SELECT uuid, timestamp_ms AS ms FROM events').all() as Array<{ uuid: Buffer; ms: number }>).map((e) => [uuidText(e.uuid), dayOf(e.ms)]),
    );
    const held = new Set(storedEvents(sandbox, 1).map((e) => e.uuid));
    const lost = new Map<string, number>();
    for (const [uuid, day] of stagedDay) if (!held.has(uuid)) lost.set(day, (lost.get(day) ?? 0) + 1);
    expect(sandbox.capture.stats.dropped.lostAfterAccept).toBeGreaterThan(100);

    const short = await verifyProject(input, silentReporter, running());
    expect(shortRows(short)).toEqual(new Map([...lost].sort()));
    expect(short.summary.missing).toBe(sandbox.capture.stats.dropped.lostAfterAccept);

    let rounds = 0;
    for (; rounds < 6 && !(await verifyProject(input, silentReporter, running())).summary.complete; rounds++) {
      await verifyProject({ ...input, resendMissing: true }, silentReporter, running());
    }
    expect(rounds).toBeGreaterThan(0);
    expect((await verifyProject(input, silentReporter, running())).summary).toMatchObject({ complete: true, totals: { landed: SAMPLE_EVENTS } });
    expectNoConflictingCopies(sandbox);
  });
});
