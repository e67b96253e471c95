/**
 * Crash safety of the built CLI against a real sandbox: kill -9 at random moments, Ctrl-C and
 * SIGTERM, then resume. The kills are triggered by the sandbox counting requests, never by a timer.
 */
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { runCli, startCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST, SAMPLE_EVENTS, deliveredCount, stageSample, stagedUuids } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

/** Kills the current child when the sandbox has seen request number `at`. */
class Killer {
  child: ChildProcess | undefined;
  requests = 0;
  at = Number.POSITIVE_INFINITY;
  signal: NodeJS.Signals = 'SIGKILL';
  onRequest = (): void => {
    if (++this.requests === this.at) this.child?.kill(this.signal);
  };
}

function expectEveryStagedEventStoredConsistently(sandbox: RunningSandbox, staging: string, teamId: number): void {
  const uuids = stagedUuids(staging);
  expect(uuids).toHaveLength(SAMPLE_EVENTS);
  const stored = storedEvents(sandbox, teamId);
  const byUuid = new Map<string, string>();
  for (const e of stored) {
    const content = JSON.stringify([e.event, e.distinct_id, e.timestamp, e.properties, e.historical_migration]);
    const seen = byUuid.get(e.uuid);
    if (seen !== undefined) expect(content, `uuid ${e.uuid} stored twice with different content`).toBe(seen);
    byUuid.set(e.uuid, content);
  }
  expect([...byUuid.keys()].sort()).toEqual([...uuids].sort());
}

describe('import survives kills and interrupts', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('kill -9 at several random moments, then resume: every event stored, re-sends identical', async () => {
    const seed = Number(process.env.MIGRATE_TEST_SEED ?? Date.now() % 1_000_000);
    const random = seededRandom(seed);
    const killer = new Killer();
    const sandbox = await sandboxAt({ capture: { faults: { loseAnswer: 0.1 }, random: seededRandom(seed + 1), onRequest: killer.onRequest } });
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const first = ['import', '--project', 'test', '--staging', staging, '--config', config, '--chunk-events', '25', '--concurrency', '3', ...FAST];
    let kills = 0;
    for (let round = 0; round < 4; round++) {
      // The first run's first capture request is its preflight, before the import run is recorded:
      // killed there, it leaves nothing to resume. The kill comes after it.
      killer.at = killer.requests + (round === 0 ? 2 : 1) + Math.floor(random() * 25);
      const run = startCli(round === 0 ? first : ['resume', '--staging', staging, ...FAST], { cwd: dir });
      killer.child = run.child;
      const result = await run.done;
      if (result.signal === 'SIGKILL') kills++;
      else expect(result.code, `seed ${seed}: ${result.stderr}`).toBe(0);
    }
    expect(kills, `seed ${seed}`).toBeGreaterThanOrEqual(3);
    killer.at = Number.POSITIVE_INFINITY;
    const last = await runCli(['resume', '--staging', staging, ...FAST], { cwd: dir });
    expect(last.code, `seed ${seed}: ${last.stderr}`).toBe(0);
    expectEveryStagedEventStoredConsistently(sandbox, staging, 1);
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
    const again = await runCli(['resume', '--staging', staging], { cwd: dir });
    expect(again.stdout).toContain('Nothing to resume');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('%s: no new chunks, exit 130, the exact resume command printed and working', async (signal) => {
    const killer = new Killer();
    killer.signal = signal;
    killer.at = 6;
    const sandbox = await sandboxAt({ capture: { onRequest: killer.onRequest } });
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const run = startCli(['import', '--project', 'test', '--staging', staging, '--config', config, '--chunk-events', '25', ...FAST], { cwd: dir });
    killer.child = run.child;
    const result = await run.done;
    expect(result.code, result.stderr).toBe(130);
    const line = result.stderr.split('\n').find((l) => l.startsWith('Resume with: '));
    expect(line).toBe('Resume with: migrate resume --project test'); // the staging file and config are the defaults here
    const delivered = deliveredCount(staging, 'test');
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(SAMPLE_EVENTS);
    expect(storedEvents(sandbox, 1)).toHaveLength(delivered); // in-flight chunks finished and were recorded

    const resumed = await runCli([...line!.replace('Resume with: migrate ', '').split(' '), ...FAST], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(storedEvents(sandbox, 1)).toHaveLength(SAMPLE_EVENTS);
    expectEveryStagedEventStoredConsistently(sandbox, staging, 1);
  });
});
