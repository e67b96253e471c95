/**
 * A backfill: the later day staged and imported first, the earlier day after. PostHog keeps the
 * last person or group update it processes, whatever its time; the persons and groups it ends
 * with must still be the latest in time the staging file holds.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

type Obj = Record<string, unknown>;

function groupOf(sandbox: RunningSandbox, key: string): Obj | undefined {
  const row = sandbox.store.db.prepare('SELECT group_properties FROM groups WHERE team_id = 1 AND group_key = ?').get(key) as { group_properties: string } | undefined;
  return row && (JSON.parse(row.group_properties) as Obj);
}

function personOf(sandbox: RunningSandbox, distinctId: string): Obj | undefined {
  const row = sandbox.store.db.prepare('SELECT p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = 1 AND d.distinct_id = ?').get(distinctId) as
    | { properties: string }
    | undefined;
  return row && (JSON.parse(row.properties) as Obj);
}

async function cli(dir: string, args: string[]): Promise<string> {
  const result = await runCli(args, { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout + result.stderr;
}

const amplitudeTime = (iso: string): string => iso.replace('T', ' ').replace('Z', '000');
function amplitudeDay(dir: string, name: string, iso: string, plan: string, n: number): string {
  const file = join(dir, name);
  const record = {
    event_type: 'Viewed',
    event_time: amplitudeTime(iso),
    uuid: `4b1393cc-b7f8-431b-8f05-${String(n).padStart(12, '0')}`,
    device_id: 'd1',
    user_id: 'ana',
    session_id: -1,
    event_properties: {},
    user_properties: {},
    groups: { company: ['acme'] },
    group_properties: { company: { acme: { plan } } },
  };
  writeFileSync(file, JSON.stringify(record) + '\n');
  return file;
}

describe('the latest update in time is what PostHog ends with', () => {
  it('Amplitude: day 2 imported, then day 1 staged and imported: the group keeps day 2’s properties', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = ['--staging', join(dir, 'm.db')];
    const importTest = (): Promise<string> => cli(dir, ['import', '--project', 'test', '--config', config, ...staging, ...FAST]);

    await cli(dir, ['export-source', '--from', 'amplitude', amplitudeDay(dir, 'day2.json', '2025-09-02T10:00:00.000Z', 'free', 2), ...staging, '--quiet']);
    await importTest();
    expect(groupOf(sandbox, 'acme')).toEqual({ plan: 'free' });

    await cli(dir, ['export-source', '--from', 'amplitude', amplitudeDay(dir, 'day1.json', '2025-09-01T10:00:00.000Z', 'pro', 1), ...staging, '--quiet']);
    await importTest();
    expect(groupOf(sandbox, 'acme')).toEqual({ plan: 'free' });

    // Nothing more to do: a second run stages and sends nothing again.
    await importTest();
    expect(groupOf(sandbox, 'acme')).toEqual({ plan: 'free' });
  });

  it('users and groups files: an older file staged after a newer one was imported leaves the newer values', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = ['--staging', join(dir, 'm.db')];
    const stageFiles = async (name: string, day: string, plan: string): Promise<void> => {
      writeFileSync(join(dir, `users-${name}.csv`), `distinct_id,plan,timestamp\nana@example.com,${plan},${day}T00:00:00Z\n`);
      writeFileSync(join(dir, `companies-${name}.csv`), `group_key,plan,timestamp\nglobex,${plan},${day}T00:00:00Z\n`);
      await cli(dir, ['identify-users', '--from', 'csv', join(dir, `users-${name}.csv`), ...staging, '--quiet']);
      await cli(dir, ['identify-groups', '--from', 'csv', join(dir, `companies-${name}.csv`), '--group-type', 'company', ...staging, '--quiet']);
    };

    await stageFiles('newer', '2025-09-02', 'enterprise');
    await cli(dir, ['import', '--project', 'test', '--config', config, ...staging, ...FAST]);
    await stageFiles('older', '2025-09-01', 'free');
    await cli(dir, ['import', '--project', 'test', '--config', config, ...staging, ...FAST]);

    expect(personOf(sandbox, 'ana@example.com')).toMatchObject({ plan: 'enterprise' });
    expect(groupOf(sandbox, 'globex')).toMatchObject({ plan: 'enterprise' });
  });
});
