/** What the preflight reads from and writes to a real staging file: staged facts and preflight records. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { latestPreflights, recordPreflight, settledPreflight } from '../../src/staging/preflights.js';
import { beginRead, finishRead } from '../../src/staging/source-reads.js';
import { stagedEventsPerDay, stagedSourceSizes, stagedSummary } from '../../src/staging/staged-facts.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 1, 10);

describe('staged facts', () => {
  const tempDir = useTempDir();

  it('counts kinds, the time range and events per UTC day; sizes of sources at their last complete read', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    try {
      const readId = beginRead(store, { path: '/data/a.csv', format: 'csv', command: 'export-source', sizeBytes: 1234, options: {} });
      const row = (i: number, kind: 0 | 1, timestampMs: number) => ({
        line: i + 2,
        raw: '',
        event: { uuid: uuidBytes(`01900000-0000-7000-8000-${String(i).padStart(12, '0')}`), kind, event: kind === 1 ? '$identify' : 'e', distinctId: 'u', timestampMs, propertiesJson: '{}' },
      });
      const rows = [T0, T0 + 3_600_000, T0 + DAY, T0 + 3 * DAY].map((timestampMs, i) => row(i, 0, timestampMs));
      rows.push(row(99, 1, T0));
      new EventWriter(store).write(readId, rows);
      finishRead(store, readId, { rowsRead: 5, staged: 5, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 }, undefined);
      beginRead(store, { path: '/data/b.csv', format: 'csv', command: 'export-source', sizeBytes: 99, options: {} }); // still reading: not counted

      expect(stagedSummary(store, 'test')).toEqual({ total: 5, events: 4, persons: 1, groups: 0, firstMs: T0, lastMs: T0 + 3 * DAY, settledForProject: 0 });
      expect(stagedEventsPerDay(store)).toEqual([
        { day: '2025-01-01', count: 2 },
        { day: '2025-01-02', count: 1 },
        { day: '2025-01-04', count: 1 },
      ]);
      expect(stagedSourceSizes(store)).toEqual(new Map([['/data/a.csv', 1234]]));
    } finally {
      store.close();
    }
  });

  it('counts events per day by index ranges as a GROUP BY over the day number would, at day boundaries and before 1970', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    try {
      const readId = beginRead(store, { path: '/data/a.csv', format: 'csv', command: 'export-source', sizeBytes: 1, options: {} });
      const midnight = Date.UTC(2025, 0, 2);
      const times = [midnight - 1, midnight, midnight + DAY - 1, midnight + DAY, midnight + 9 * DAY, -2 * DAY - 1, -2 * DAY, -DAY - 1, -DAY, -DAY + 1, -1, 0, 1, DAY - 1, DAY];
      const rows = times.map((timestampMs, i) => ({
        line: i + 2,
        raw: '',
        event: { uuid: uuidBytes(`01900000-0000-7000-8000-${String(i).padStart(12, '0')}`), kind: 0 as const, event: 'e', distinctId: 'u', timestampMs, propertiesJson: '{}' },
      }));
      new EventWriter(store).write(readId, rows);
      const grouped = store.db.prepare(`SELECT timestamp_ms / ${DAY} AS d, count(*) AS n FROM events WHERE kind = 0 GROUP BY d ORDER BY d`).all() as Array<{ d: number; n: number }>;
      expect(stagedEventsPerDay(store)).toEqual(grouped.map((r) => ({ day: new Date(r.d * DAY).toISOString().slice(0, 10), count: r.n })));
      expect(grouped.reduce((n, r) => n + r.n, 0)).toBe(times.length);
    } finally {
      store.close();
    }
  });

  it('records preflights: a passed or skipped one settles the project on that host, a failed one does not', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    try {
      const base = { problems: 0, warnings: 0, checks: [] };
      recordPreflight(store, {
        ...base,
        project: 'test',
        host: 'https://a',
        outcome: 'failed',
        problems: 1,
        checks: [{ check: 'project-key', verdict: 'problem', message: 'key phc_abcdefghijkl is unknown' }],
      });
      expect(settledPreflight(store, 'test', 'https://a')).toBeUndefined();
      recordPreflight(store, { ...base, project: 'test', host: 'https://a', outcome: 'passed', warnings: 2 });
      recordPreflight(store, { ...base, project: 'prod', host: 'https://a', outcome: 'skipped' });
      expect(settledPreflight(store, 'test', 'https://a')).toMatchObject({ outcome: 'passed', warnings: 2 });
      expect(settledPreflight(store, 'test', 'https://b')).toBeUndefined();
      expect(latestPreflights(store).map((p) => [p.project, p.outcome])).toEqual([
        ['test', 'passed'],
        ['prod', 'skipped'],
      ]);
      const failed = store.db.prepare("SELECT checks FROM preflights WHERE outcome = 'failed'").get() as { checks: string };
      expect(failed.checks).toContain('phc_[redacted]');
    } finally {
      store.close();
    }
  });
});
