/**
 * Mixpanel as its users knew it: with simplified ID merge, a visitor's events carry
 * `$device:<id>` until login, then the user id; the link between them is staged as an
 * `$identify`, with the same guards as Amplitude's. The original ID merge's `$identify` and
 * `$create_alias` events are kept as they are, since PostHog reads them. Imported into the
 * sandbox, every visitor is one person.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { personOfDistinctId } from '../../src/sandbox/capture/ingested-data.js';
import { exportSource, stagingIn } from '../helpers/export-source.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

const T0 = Date.UTC(2025, 8, 1, 9) / 1000;
let inserts = 0;
function mp(event: string, minute: number, properties: Record<string, unknown>): string {
  return JSON.stringify({ event, properties: { time: T0 + minute * 60, $insert_id: `ins-${++inserts}`, ...properties } });
}
const anon = (device: string, minute: number): string => mp('Viewed', minute, { distinct_id: `$device:${device}`, $device_id: device });
const known = (user: string, device: string, minute: number): string => mp('Viewed', minute, { distinct_id: user, $user_id: user, $device_id: device });

const LINES = [
  // Simplified ID merge: a visitor, then the same device after login; a second device of the same user.
  anon('m1', 0),
  anon('m1', 1),
  known('mu1', 'm1', 2),
  anon('m2', 30),
  known('mu1', 'm2', 31),
  // A device shared by two users, and a placeholder device.
  anon('m3', 40),
  known('mu3', 'm3', 41),
  known('mu4', 'm3', 42),
  anon('00000000-0000-0000-0000-000000000000', 50),
  known('mu5', '00000000-0000-0000-0000-000000000000', 51),
  // Original ID merge: PostHog reads these as they are.
  mp('Viewed', 60, { distinct_id: 'anon-2' }),
  mp('$identify', 61, { distinct_id: 'mu2', $anon_distinct_id: 'anon-2', $identified_id: 'mu2' }),
  mp('Viewed', 62, { distinct_id: 'mu2', $distinct_id_before_identity: 'anon-2' }),
  mp('Viewed', 70, { distinct_id: 'old-id' }),
  mp('$create_alias', 71, { distinct_id: 'mu6', alias: 'old-id' }),
];

describe('Mixpanel: identity links', () => {
  it('links $device:<id> to the user it later shows, keeps the original ID merge events, and PostHog merges them', async () => {
    const target = stagingIn(tempDir());
    const file = join(target.dir, 'export.jsonl');
    writeFileSync(file, LINES.join('\n') + '\n');
    const result = await exportSource(target, ['--from', 'mixpanel', file]);
    expect(result.passes.identity).toMatchObject({ staged: 3, totals: { links: 3, shared: 1, placeholders: 1, kiosks: 0 } });

    const staged = readStagedEvents(target.staging);
    const links = staged.filter((e) => e.event === '$identify' && e.source === '').map((e) => [e.distinct_id, e.properties.$anon_distinct_id, e.timestamp]);
    expect(links.sort()).toEqual([
      ['mu1', '$device:m1', new Date((T0 + 120) * 1000 - 1).toISOString()],
      ['mu1', '$device:m2', new Date((T0 + 31 * 60) * 1000 - 1).toISOString()],
      ['mu3', '$device:m3', new Date((T0 + 41 * 60) * 1000 - 1).toISOString()],
    ]);
    const original = staged.filter((e) => e.source !== '' && (e.event === '$identify' || e.event === '$create_alias'));
    expect(original.map((e) => [e.event, e.distinct_id, e.properties.$anon_distinct_id ?? e.properties.alias])).toEqual([
      ['$identify', 'mu2', 'anon-2'],
      ['$create_alias', 'mu6', 'old-id'],
    ]);
    expect(staged.find((e) => e.properties.$distinct_id_before_identity !== undefined)?.properties.$distinct_id_before_identity).toBe('anon-2');
    // The links are sent like every other row: never located at the importing machine, and found by the staging file's $import_run.
    const run = staged[0]!.properties.$import_run;
    expect(run).toEqual(expect.any(String));
    for (const link of staged.filter((e) => e.source === '')) {
      expect(link.properties).toMatchObject({ $geoip_disable: true, $import_source: 'identity-links', $import_run: run });
    }

    const sandbox = await sandboxAt();
    const config = writeSandboxConfig(target.dir, sandbox);
    const imported = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(imported.code, imported.stderr).toBe(0);
    const person = (id: string): number => {
      const found = personOfDistinctId(sandbox.store, 1, id);
      expect(found, id).toBeDefined();
      return found!.id;
    };
    expect(person('$device:m1')).toBe(person('mu1'));
    expect(person('$device:m2')).toBe(person('mu1'));
    expect(person('$device:m3')).toBe(person('mu3'));
    expect(person('mu4')).not.toBe(person('mu3'));
    expect(person('$device:00000000-0000-0000-0000-000000000000')).not.toBe(person('mu5'));
    expect(person('anon-2')).toBe(person('mu2'));
    expect(person('old-id')).toBe(person('mu6'));
    // No person was placed where the import ran (the sandbox's GeoIP places every sender at "Sandbox City").
    for (const id of ['mu1', 'mu3', 'mu4', 'mu5', 'mu2', 'mu6']) expect(personOfDistinctId(sandbox.store, 1, id)!.properties, id).not.toHaveProperty('$initial_geoip_city_name');
  });
});
