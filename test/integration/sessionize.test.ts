/**
 * --sessionize <minutes> for sources without sessions: per distinct_id, a new session after that
 * many minutes without an event, each event given a UUIDv7 `$session_id` that starts at the
 * session's first event, worked out over every file of the staging file; a source's own session
 * id that PostHog would not keep is reported and kept as `$source_session_id`. Imported into the
 * sandbox, its sessions table holds them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionsOf } from '../../src/sandbox/capture/ingested-data.js';
import { exportSource, stagingIn, type Staging } from '../helpers/export-source.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

const at = (hh: number, mm: number): string => new Date(Date.UTC(2025, 8, 1, hh, mm)).toISOString();
const line = (distinctId: string, time: string, properties: Record<string, unknown> = {}): string => JSON.stringify({ event: 'Viewed', distinct_id: distinctId, timestamp: time, properties });

function write(target: Staging, name: string, lines: string[]): string {
  const file = join(target.dir, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Each staged event's distinct_id, time and session start (from its UUIDv7), in time order. */
function sessions(staging: string): Array<[string, string, string | undefined]> {
  return readStagedEvents(staging)
    .map((e): [string, string, string | undefined] => {
      const id = e.properties.$session_id as string | undefined;
      return [e.distinct_id, e.timestamp, id === undefined ? undefined : new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toISOString()];
    })
    .sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));
}

describe('--sessionize', () => {
  it('computes sessions per person over every file, moves a source session id aside, and the sandbox keeps them', async () => {
    const target = stagingIn(tempDir());
    const first = write(target, 'a.jsonl', [line('a', at(10, 0)), line('a', at(10, 20)), line('a', at(11, 0)), line('a', at(11, 10)), line('b', at(10, 0), { $session_id: 'abc' })]);
    const result = await exportSource(target, ['--from', 'jsonl', '--sessionize', '30', first]);
    expect(result.totals.notes).toMatchObject({ session_id_not_uuidv7: { count: 1, examples: ['abc'] }, source_session_id_kept: { count: 1 } });
    expect(result.passes.sessions).toMatchObject({ minutes: 30, updated: 5, totals: { events: 5, sessions: 3 } });
    expect(sessions(target.staging)).toEqual([
      ['a', at(10, 0), at(10, 0)],
      ['a', at(10, 20), at(10, 0)],
      ['a', at(11, 0), at(11, 0)],
      ['a', at(11, 10), at(11, 0)],
      ['b', at(10, 0), at(10, 0)],
    ]);
    expect(readStagedEvents(target.staging).find((e) => e.distinct_id === 'b')!.properties.$source_session_id).toBe('abc');

    // The same file again: nothing new, nothing in conflict with the session ids given after staging.
    const again = await exportSource(target, ['--from', 'jsonl', '--sessionize', '30', first, '--reread']);
    expect(again.totals).toMatchObject({ staged: 0, alreadyStaged: 5, rejected: 0 });
    expect(again.passes.sessions.updated).toBe(0);

    // A later file with an event between a's two sessions joins them into one.
    await exportSource(target, ['--from', 'jsonl', '--sessionize', '30', write(target, 'b.jsonl', [line('a', at(10, 40))])]);
    expect(
      sessions(target.staging)
        .filter((s) => s[0] === 'a')
        .map((s) => s[2]),
    ).toEqual(Array(5).fill(at(10, 0)));

    const sandbox = await sandboxAt();
    const config = writeSandboxConfig(target.dir, sandbox);
    const imported = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(imported.code, imported.stderr).toBe(0);
    expect(
      sessionsOf(sandbox.store, 1)
        .map((s) => [s.distinctId, s.sessionStart, s.eventCount])
        .sort(),
    ).toEqual([
      ['a', at(10, 0), 5],
      ['b', at(10, 0), 1],
    ]);

    // Once delivered, a file that would move a session's start is refused, and nothing of it is kept.
    const refused = await runCli(['export-source', '--staging', target.staging, '--from', 'jsonl', '--sessionize', '30', write(target, 'c.jsonl', [line('a', at(9, 50))])], { cwd: target.dir });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('would change the session of 5 events a project already received');
    expect(readStagedEvents(target.staging).filter((e) => e.timestamp === at(9, 50))).toEqual([]);
    const status = JSON.parse((await runCli(['status', '--json', '--staging', target.staging], { cwd: target.dir })).stdout);
    expect(status.passes.pendingSince).toBeNull();
    // The refused read's row was removed: the all-files total leaves that read out.
    expect(status.sourceTotals).toMatchObject({ rowsRead: 6, staged: 1, alreadyStaged: 5 });
    expect(status.events.count).toBe(6);
    const text = (await runCli(['status', '--staging', target.staging], { cwd: target.dir })).stdout;
    expect(text).toMatch(/  all files +6 +1 +5 /);
    expect(text).toContain('failed reads are left out of the total: nothing of them is staged');
  });

  it('a refusal names each example once: events of one person at one instant are one line', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, [
      '--from',
      'jsonl',
      '--sessionize',
      '30',
      write(target, 'a.jsonl', [line('a', at(10, 0)), JSON.stringify({ event: 'Clicked', distinct_id: 'a', timestamp: at(10, 0), properties: {} })]),
    ]);
    const sandbox = await sandboxAt();
    const config = writeSandboxConfig(target.dir, sandbox);
    expect((await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir })).code).toBe(0);
    const refused = await runCli(['export-source', '--staging', target.staging, '--from', 'jsonl', '--sessionize', '30', write(target, 'b.jsonl', [line('a', at(9, 50))])], { cwd: target.dir });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('would change the session of 2 events a project already received');
    expect(refused.stderr.split('\n').filter((l) => l.includes('distinct_id a,'))).toEqual([`  distinct_id a, 2 events at ${at(10, 0)}`]);
  });

  it('says when a source session id is not a UUIDv7, and offers --sessionize', async () => {
    const target = stagingIn(tempDir());
    const file = write(target, 'a.jsonl', [line('a', at(10, 0), { $session_id: 12345 }), line('a', at(10, 1), { $session_id: '0199047f-3587-7aca-97c4-d5093a6e9adc' })]);
    const result = await runCli(['export-source', '--staging', target.staging, '--from', 'jsonl', file], { cwd: target.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 event had a $session_id that is not a UUIDv7 (e.g. 12345)');
    expect(result.stdout).toContain('--sessionize 30');
    expect(readStagedEvents(target.staging)[0]!.properties.$session_id).toBe(12345);

    const other = await runCli(['export-source', '--staging', target.staging, '--from', 'jsonl', '--sessionize', '20', write(target, 'b.jsonl', [line('c', at(9, 0))])], { cwd: target.dir });
    expect(other.code).toBe(0);
    const mismatch = await runCli(['export-source', '--staging', target.staging, '--from', 'jsonl', '--sessionize', '30', write(target, 'c.jsonl', [line('d', at(9, 0))])], { cwd: target.dir });
    expect(mismatch.code).toBe(6);
    expect(mismatch.stderr).toContain('worked out with --sessionize 20');
  });
});
