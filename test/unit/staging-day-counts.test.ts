/** verify's reads and the re-queue in a real staging file: days before 1970, all kinds, dead letters, the requeue record. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StagedEvent } from '../../src/events/staged-event.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { countByDay, deadLettersByReason, forEachDeliveredUuid, stagedTimeRange } from '../../src/staging/day-counts.js';
import { bindProject, DeliveryCheckpoint, findProjectRecord } from '../../src/staging/delivery-store.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { readImportRunId } from '../../src/staging/import-run-id.js';
import { startRun } from '../../src/staging/import-runs.js';
import { requeueDelivered, requeuedCount } from '../../src/staging/requeue.js';
import { beginRead, finishRead } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const D = 86_400_000;

function event(i: number, kind: 0 | 1 | 2, timestampMs: number, name = 'e'): StagedEvent {
  return { uuid: uuidBytes(`01900000-0000-7000-8000-${String(i).padStart(12, '0')}`), kind, event: kind === 1 ? '$identify' : name, distinctId: `u${i}`, timestampMs, propertiesJson: '{}' };
}

function staged(dir: string): StagingStore {
  const store = StagingStore.open(join(dir, 'm.db'));
  const events = [
    event(1, 0, -1, 'before'), // 1969-12-31
    event(2, 0, 0, 'a'), // 1970-01-01
    event(3, 0, D - 1, 'b'),
    event(4, 1, D + 5),
    event(5, 2, D + 6, '$groupidentify'),
    event(6, 0, 3 * D, 'a'),
  ];
  const readId = beginRead(store, { path: '/src.csv', format: 'csv', command: 'test', sizeBytes: 1, options: {} });
  new EventWriter(store).write(
    readId,
    events.map((e, i) => ({ line: i + 2, raw: '', event: e })),
  );
  finishRead(store, readId, { rowsRead: 6, staged: 6, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 }, undefined);
  return store;
}

describe('day counts', () => {
  const tempDir = useTempDir();

  it('counts staged, delivered and dead letters per UTC day, all kinds, before 1970 too', () => {
    const store = staged(tempDir());
    const project = bindProject(store, { name: 'test', role: 'test', host: 'http://h' });
    const run = startRun(store, { projectId: project.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
    const checkpoint = new DeliveryCheckpoint(store, project.id, run.id);
    checkpoint.delivered([1, 2, 4, 5]);
    checkpoint.deadLettered([{ seq: 3, status: 400, message: 'bad' }]);
    const range = { fromMs: -D, toMs: 4 * D };
    expect(stagedTimeRange(store)).toEqual({ firstMs: -1, lastMs: 3 * D });
    expect(countByDay(store, project.id, range, false)).toEqual([
      { day: -1, staged: 1, delivered: 1, deadLetters: 0 },
      { day: 0, staged: 2, delivered: 1, deadLetters: 1 },
      { day: 1, staged: 2, delivered: 2, deadLetters: 0 },
      { day: 3, staged: 1, delivered: 0, deadLetters: 0 },
    ]);
    expect(countByDay(store, project.id, { fromMs: 0, toMs: D }, true).map((r) => [r.event, r.staged])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(countByDay(store, undefined, range, false).every((r) => r.delivered === 0)).toBe(true);
    expect(deadLettersByReason(store, project.id)).toEqual([{ status: 400, message: 'bad', count: 1 }]);
    const delivered = (fromMs: number, toMs: number): Array<[number, string, number, string]> => {
      const visited: Array<[number, string, number, string]> = [];
      forEachDeliveredUuid(store, project.id, { fromMs, toMs }, (seq, uuid, day, name) => visited.push([seq, uuid, day, name]));
      return visited.sort((a, b) => a[0] - b[0]);
    };
    // Only what the project received: the dead letter (seq 3) and the undelivered event (seq 6) are not visited.
    expect(delivered(0, D)).toEqual([[2, '01900000000070008000000000000002', 0, 'a']]);
    expect(delivered(D, 2 * D)).toEqual([
      [4, '01900000000070008000000000000004', 1, '$identify'],
      [5, '01900000000070008000000000000005', 1, '$groupidentify'],
    ]);
    expect(delivered(3 * D, 4 * D)).toEqual([]);
    expect(readImportRunId(store)).toBeUndefined();
    store.close();
  });

  it('re-queues only delivered events, records the run, and keeps the counter in step', () => {
    const store = staged(tempDir());
    const project = bindProject(store, { name: 'test', role: 'test', host: 'http://h' });
    const first = startRun(store, { projectId: project.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
    new DeliveryCheckpoint(store, project.id, first.id).delivered([1, 2, 3, 4, 5, 6]);
    const again = startRun(store, { projectId: project.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
    expect(requeueDelivered(store, project.id, again.id, [2, 6, 99])).toBe(2);
    expect(requeueDelivered(store, project.id, again.id, [2])).toBe(0);
    expect(findProjectRecord(store, 'test')!.delivered).toBe(4);
    expect(requeuedCount(store, project.id)).toBe(2);
    expect(store.db.prepare('SELECT seq, run_id AS runId FROM requeued_events ORDER BY seq').all()).toEqual([
      { seq: 2, runId: again.id },
      { seq: 6, runId: again.id },
    ]);
    const stillDelivered: number[] = [];
    forEachDeliveredUuid(store, project.id, { fromMs: -D, toMs: 4 * D }, (seq) => stillDelivered.push(seq));
    expect(stillDelivered.sort()).toEqual([1, 3, 4, 5]);
    store.close();
  });
});
