/**
 * `export-source --from posthog-api` (the built CLI) from a project whose persons PostHog
 * finds too slow to read whole: `persons` and `person_distinct_ids` aggregate the whole raw
 * table, so any query over them is refused (512). The distinct ids are read from the raw table
 * by key ranges, halved until each is answered, and every person arrives with every distinct
 * id and property, merged persons still one, in the project they are imported into.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { personsOf, posthogExportArgs, sendToSandbox, type SourceEvent, writeMoveConfig } from '../helpers/posthog-source.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, withoutGeoip } from '../helpers/sandbox.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxes = useSandbox();

const uuidOf = (n: number) => `0190d000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const at = (hour: number) => new Date(Date.UTC(2025, 2, 1, hour, 30)).toISOString();

/** Twelve people, each identified with a plan; every third one first seen anonymously and merged. */
function people(): SourceEvent[] {
  return Array.from({ length: 12 }, (_, i): SourceEvent[] => {
    const user = `user-${String(i).padStart(2, '0')}@example.com`;
    const identify: SourceEvent = {
      uuid: uuidOf(i * 2 + 1),
      event: '$identify',
      distinct_id: user,
      timestamp: at(i * 2 + 1),
      properties: { $set: { plan: i % 2 === 0 ? 'pro' : 'free', rank: i }, ...(i % 3 === 0 ? { $anon_distinct_id: `anon-${i}` } : {}) },
    };
    const seen: SourceEvent = { uuid: uuidOf(i * 2), event: 'pageview', distinct_id: i % 3 === 0 ? `anon-${i}` : user, timestamp: at(i * 2), properties: {} };
    return [seen, identify];
  }).flat();
}

describe('persons PostHog finds too slow to read whole', () => {
  it('are read by ranges of distinct ids, halved until answered: every person, id and property staged', async () => {
    const a = await sandboxes({ api: { query: { maxEstimatedRows: 5 } } });
    const b = await sandboxes();
    const dir = tempDir();
    const config = writeMoveConfig(dir, a, b);
    await sendToSandbox(a, people());
    const inA = personsOf(a);
    expect(inA.size).toBe(16);
    expect(inA.get('anon-3')!.person).toBe(inA.get('user-03@example.com')!.person);

    const run = await runCli([...posthogExportArgs(dir, config, '2025-03-01', '2025-03-01'), '--retry-budget-ms', '200', '--json'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { people?: Array<{ part: string; status: string; error?: string }> };
    expect(JSON.stringify(result.people ?? result)).toContain('"part":"persons","status":"done"');

    const imported = await runCli(['import', '--project', 'test', '--staging', join(dir, 'migration.db'), '--config', config, ...FAST], { cwd: dir });
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    const inB = personsOf(b);
    expect([...inB.keys()].sort()).toEqual([...inA.keys()].sort());
    for (const [id, person] of inA) expect(withoutGeoip(inB.get(id)!.properties), id).toEqual(withoutGeoip(person.properties));
    for (const i of [0, 3, 6, 9]) expect(inB.get(`anon-${i}`)!.person).toBe(inB.get(`user-${String(i).padStart(2, '0')}@example.com`)!.person);
    expect(new Set([...inB.values()].map((p) => p.person)).size).toBe(12);
  });
});
