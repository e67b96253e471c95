/** The range ledger as status reports it: states counted, consecutive ranges merged, failures listed; none in a file of an older schema. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rangeReports } from '../../src/staging/range-report.js';
import { addPendingRanges, markDone, markEmpty, markFailed, rangesOf } from '../../src/staging/source-ranges.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const NOW = '2026-01-01T00:00:00.000Z';

describe('rangeReports', () => {
  it('merges consecutive ranges in the same state and lists the failed ones', () => {
    const store = StagingStore.open(join(tempDir(), 'migration.db'), { lockFor: 'test' });
    try {
      const source = 'mixpanel-api:1';
      const days = ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-06', '2024-01-07'];
      addPendingRanges(
        store,
        source,
        days.map((d) => ({ start: d, end: d })),
        NOW,
      );
      const [d1, d2, d3, , d6] = rangesOf(store, source);
      markDone(store, d1!.id, { bytes: 10, rowsRead: 5, rowsStaged: 5, rowsRejected: 0 }, {}, NOW);
      markDone(store, d2!.id, { bytes: 10, rowsRead: 7, rowsStaged: 7, rowsRejected: 0 }, {}, NOW);
      markFailed(store, d3!.id, 'Mixpanel kept failing for 2024-01-03 (HTTP 500: boom)', NOW);
      markEmpty(store, d6!.id, {}, NOW);
      const hourly = 'amplitude-api:ab';
      addPendingRanges(
        store,
        hourly,
        [
          { start: '20240101T00', end: '20240101T23' },
          { start: '20240102T00', end: '20240102T11' },
        ],
        NOW,
      );
      for (const row of rangesOf(store, hourly)) markDone(store, row.id, { bytes: 1, rowsRead: 1, rowsStaged: 1, rowsRejected: 0 }, {}, NOW);

      expect(rangeReports(store)).toEqual([
        {
          source: hourly,
          counts: { pending: 0, fetching: 0, done: 2, empty: 0, failed: 0 },
          spans: [{ status: 'done', start: '20240101T00', end: '20240102T11', ranges: 2, rowsRead: 2 }],
          failed: [],
        },
        {
          source,
          counts: { pending: 2, fetching: 0, done: 2, empty: 1, failed: 1 },
          spans: [
            { status: 'done', start: '2024-01-01', end: '2024-01-02', ranges: 2, rowsRead: 12 },
            { status: 'failed', start: '2024-01-03', end: '2024-01-03', ranges: 1, rowsRead: 0 },
            { status: 'pending', start: '2024-01-04', end: '2024-01-04', ranges: 1, rowsRead: 0 },
            // A gap (no 2024-01-05 in the ledger) is not merged over.
            { status: 'empty', start: '2024-01-06', end: '2024-01-06', ranges: 1, rowsRead: 0 },
            { status: 'pending', start: '2024-01-07', end: '2024-01-07', ranges: 1, rowsRead: 0 },
          ],
          failed: [{ start: '2024-01-03', end: '2024-01-03', attempts: 0, error: 'Mixpanel kept failing for 2024-01-03 (HTTP 500: boom)' }],
        },
      ]);
    } finally {
      store.close();
    }
  });

  it('reports no ranges for a file without the ledger', () => {
    const path = join(tempDir(), 'old.db');
    const store = StagingStore.open(path, { lockFor: 'test' });
    store.db.exec('DROP TABLE source_ranges');
    expect(rangeReports(store)).toEqual([]);
    store.close();
  });
});
