/**
 * Each vendor source end to end: export-source on its fixtures, import into a real sandbox,
 * and every staged event stored exactly as staged; a second export stages nothing new.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSource, stagingIn } from '../helpers/export-source.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { asIngested, storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

const SOURCES: Array<[string, string[]]> = [
  ['mixpanel', [join(FIXTURES, 'mixpanel')]],
  // An old raw pipeline and a JSON pipeline holding the same events: each imported once.
  ['mixpanel', [join(FIXTURES, 'mixpanel-pipelines')]],
  ['amplitude', [join(FIXTURES, 'amplitude', 'export-123456.zip')]],
  ['posthog', [join(FIXTURES, 'posthog')]],
  ['segment', [join(FIXTURES, 'segment')]],
  ['ga4', [join(FIXTURES, 'ga4')]],
];

describe('vendor sources, exported then imported', () => {
  it.each(SOURCES)('%s: every staged event is stored as staged; a re-export stages nothing new', async (from, files) => {
    const sandbox = await sandboxAt();
    const target = stagingIn(tempDir());
    const config = writeSandboxConfig(target.dir, sandbox);
    const first = await exportSource(target, ['--from', from, ...files]);
    expect(first.totals.staged).toBeGreaterThan(0);

    const result = await runCli(['import', '--project', 'test', '--staging', target.staging, '--config', config, ...FAST], { cwd: target.dir });
    expect(result.code, result.stderr).toBe(0);

    const staged = readStagedEvents(target.staging);
    const stored = storedEvents(sandbox, 1);
    expect(stored).toHaveLength(staged.length);
    const byUuid = new Map(stored.map((e) => [e.uuid, e]));
    for (const event of staged) {
      const copy = byUuid.get(event.uuid);
      expect(copy, event.uuid).toBeDefined();
      // Ingestion also files each group of $groups under its type index ($group_0...): left out.
      const properties = Object.fromEntries(Object.entries(JSON.parse(copy!.properties) as Record<string, unknown>).filter(([key]) => !/^\$group_\d$/.test(key)));
      expect({ event: copy!.event, distinct_id: copy!.distinct_id, timestamp: copy!.timestamp, properties }).toEqual({
        event: event.event,
        distinct_id: event.distinct_id,
        timestamp: event.timestamp,
        properties: asIngested(event.properties),
      });
      expect(copy!.historical_migration).toBe(1);
    }

    // --reread: an unchanged file is otherwise not read again at all.
    const again = await exportSource(target, ['--from', from, '--reread', ...files]);
    expect(again.totals.staged).toBe(0);
    expect(again.totals.alreadyStaged).toBe(first.totals.staged + first.totals.alreadyStaged + first.totals.duplicates);
  });
});
