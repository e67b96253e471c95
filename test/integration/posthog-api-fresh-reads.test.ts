/**
 * `export-source --from posthog-api` (the built CLI) against a source whose rows change while a
 * window is read: a window is done only when its rows equal a count taken after the last page,
 * and one that read fewer rows than it counted is failed, never done. (A rerun after a kill,
 * with PostHog's query cache, is in posthog-move.test.ts.)
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { posthogExportArgs, sendToSandbox, writeMoveConfig, type SourceEvent } from '../helpers/posthog-source.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxes = useSandbox();

const uuidOf = (n: number): string => `0190c000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** Ten events of 2025-03-01, five minutes apart from 01:00. */
const TEN: SourceEvent[] = Array.from({ length: 10 }, (_, i) => ({
  uuid: uuidOf(i + 1),
  event: 'purchase',
  distinct_id: `user-${i % 3}`,
  timestamp: new Date(Date.UTC(2025, 2, 1, 1, i * 5)).toISOString(),
  properties: { n: i },
}));

/** An event that sorts before every one of TEN: behind any cursor. */
const EARLY: SourceEvent = { uuid: uuidOf(99), event: 'late', distinct_id: 'user-9', timestamp: '2025-03-01T00:59:00.000Z', properties: {} };

/** The page after the first: the only query with a cursor. */
const isSecondPage = (query: string): boolean => query.startsWith('SELECT uuid') && query.includes(' AND (timestamp > ');

function exportArgs(dir: string, config: string): string[] {
  return [...posthogExportArgs(dir, config, '2025-03-01', '2025-03-01'), '--json'];
}

function addEvent(sandbox: RunningSandbox, e: SourceEvent): void {
  sandbox.store.db
    .prepare(`INSERT INTO events (team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint, received_at) VALUES (1, ?, ?, ?, ?, '{}', 1, '/batch/', ?)`)
    .run(e.uuid, e.event, e.distinct_id, e.timestamp, e.timestamp);
}

function stagedUuids(dir: string): string[] {
  return readStagedEvents(join(dir, 'migration.db'))
    .filter((e) => !e.source.includes('#'))
    .map((e) => e.uuid)
    .sort();
}

interface Ledger {
  ledger: { done: number; failed: number };
  ranges: Array<{ status: string; error?: string }>;
}

describe('export-source --from posthog-api reads what the source holds now', () => {
  it('an event that arrives behind the cursor while the window is paged leaves it failed; the next run stages all eleven', async () => {
    let arrived = false;
    let a: RunningSandbox | undefined;
    const gate = (query: string): void => {
      if (arrived || !isSecondPage(query)) return;
      arrived = true;
      addEvent(a!, EARLY);
    };
    a = await sandboxes({ api: { query: { maxRows: 4, gate } } });
    const dir = tempDir();
    const config = writeMoveConfig(dir, a);
    await sendToSandbox(a, TEN);

    const first = await runCli(exportArgs(dir, config), { cwd: dir });
    expect(arrived).toBe(true);
    const firstResult = JSON.parse(first.stdout) as Ledger;
    expect(firstResult.ledger).toMatchObject({ done: 0, failed: 1 });
    expect(firstResult.ranges[0]!.error).toContain('counts 11 events');
    expect(first.code).not.toBe(0);
    expect(stagedUuids(dir)).toEqual([]);

    const again = await runCli(exportArgs(dir, config), { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(stagedUuids(dir)).toEqual([...TEN, EARLY].map((e) => e.uuid).sort());
  });

  it('an event deleted between the count and the pages leaves the window failed, not done', async () => {
    let deleted = false;
    let a: RunningSandbox | undefined;
    const gate = (query: string): void => {
      if (deleted || !isSecondPage(query)) return;
      deleted = true;
      a!.store.db.prepare('DELETE FROM events WHERE uuid = ?').run(TEN[9]!.uuid);
    };
    a = await sandboxes({ api: { query: { maxRows: 4, gate } } });
    const dir = tempDir();
    const config = writeMoveConfig(dir, a);
    await sendToSandbox(a, TEN);

    const first = await runCli(exportArgs(dir, config), { cwd: dir });
    expect(deleted).toBe(true);
    const result = JSON.parse(first.stdout) as Ledger;
    expect(result.ledger).toMatchObject({ done: 0, failed: 1 });
    expect(result.ranges[0]!.error).toContain('counts 10 events');
    expect(first.code).not.toBe(0);
    expect(stagedUuids(dir)).toEqual([]);
  });
});
