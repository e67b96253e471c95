/**
 * `export-source --from posthog-api` (the built CLI) against a source that caches query answers
 * as PostHog does and whose rows change while a window is read: every count and page is
 * calculated afresh, a window is done only when its rows equal a count taken after the last
 * page, and one that read fewer rows than it counted is failed, never done.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { posthogExportArgs, sendToSandbox, writeMoveConfig, type SourceEvent } from '../helpers/posthog-source.js';
import { runCli, startCli } from '../helpers/run-cli.js';
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
  it('after a kill between the first and second page of a window, an event added before the cursor is staged by the rerun (no cached count or page)', async () => {
    let held = false;
    let release: () => void = () => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const gate = async (query: string): Promise<void> => {
      if (held || !isSecondPage(query)) return;
      held = true;
      await hold;
    };
    const a = await sandboxes({ api: { query: { maxRows: 4, gate } } });
    const dir = tempDir();
    const config = writeMoveConfig(dir, a);
    await sendToSandbox(a, TEN);

    const { child, done } = startCli(exportArgs(dir, config), { cwd: dir });
    for (let i = 0; i < 1000 && !held; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    await sendToSandbox(a, [EARLY]);
    release();

    const again = await runCli(exportArgs(dir, config), { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as Ledger).ledger).toMatchObject({ done: 1, failed: 0 });
    expect(stagedUuids(dir)).toEqual([...TEN, EARLY].map((e) => e.uuid).sort());
  });

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
