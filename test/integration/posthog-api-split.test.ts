/**
 * `export-source --from posthog-api` (the built CLI) against a source whose ClickHouse finds a
 * day's window too slow, answering as PostHog does: 512 when its estimate refuses the query,
 * 504 when the query hits the execution time limit. Either way the window is asked for in
 * halves, never retried as it is, and every event is staged.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { posthogExportArgs, sendToSandbox, writeMoveConfig, type SourceEvent } from '../helpers/posthog-source.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxes = useSandbox();

/** One event in each hour of 2025-03-01. */
const DAY: SourceEvent[] = Array.from({ length: 24 }, (_, hour) => ({
  uuid: `0190d000-0000-7000-8000-${hour.toString(16).padStart(12, '0')}`,
  event: 'purchase',
  distinct_id: `user-${hour % 4}`,
  timestamp: new Date(Date.UTC(2025, 2, 1, hour, 30)).toISOString(),
  properties: { hour },
}));

interface Result {
  ledger: { done: number; failed: number; pending: number };
  ranges: Array<{ status: string }>;
}

describe('a window PostHog finds too slow', () => {
  it.each([
    ['512, refused on its estimate', { maxEstimatedRows: 12 }],
    ['504, stopped at its execution time limit', { maxScannedRows: 12 }],
  ])('%s: asked for in halves, every event staged', async (_, limits) => {
    const a = await sandboxes({ api: { query: limits } });
    const dir = tempDir();
    const config = writeMoveConfig(dir, a);
    await sendToSandbox(a, DAY);

    // A short retry budget: a refusal retried as a 5xx would fail the run at once instead of after hours.
    const run = await runCli([...posthogExportArgs(dir, config, '2025-03-01', '2025-03-01'), '--retry-budget-ms', '200', '--json'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as Result;
    expect(result.ledger).toMatchObject({ failed: 0, pending: 0 });
    expect(result.ranges.some((r) => r.status === 'split')).toBe(true);
    const staged = readStagedEvents(join(dir, 'migration.db')).filter((e) => !e.source.includes('#'));
    expect(staged.map((e) => e.uuid).sort()).toEqual(DAY.map((e) => e.uuid).sort());
  });
});
