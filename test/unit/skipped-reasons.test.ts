/**
 * Skipped rows by reason: kept with each read, added up by status, and said in one line; a file
 * staged before reasons were kept (its skipped rows were mapped to null) still reads in status.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skippedReasons } from '../../src/cli/commands/export-source/staging-output.js';
import { migrate, openDatabase } from '../../src/sqlite/database.js';
import { beginRead, finishRead, latestRead } from '../../src/staging/source-reads.js';
import { stagingReport } from '../../src/staging/staging-report.js';
import { MIGRATIONS, STAGING_APPLICATION_ID } from '../../src/staging/staging-schema.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const counts = { rowsRead: 10, staged: 5, alreadyStaged: 0, duplicates: 0, skipped: 4, rejected: 2, recent: 0 };

describe('skipped rows by reason', () => {
  it.each<[string, number, Record<string, number>, string]>([
    ['by reason, most first', 12, { 'transform strip-test.mjs': 2, '--skip-events': 10 }, '10 by --skip-events, 2 dropped by transform strip-test.mjs'],
    [
      'each filter in words',
      4,
      { '--only-events': 1, '--since': 1, '--until': 1, map: 1 },
      '1 not in --only-events, 1 before --since, 1 at or after --until, 1 mapped to null (by --map, or a source default such as session_start)',
    ],
    ['a read from before reasons were kept: mapped to null', 3, {}, '3 mapped to null (by --map, or a source default such as session_start)'],
  ])('%s', (_name, skipped, by, text) => {
    expect(skippedReasons(skipped, by)).toBe(text);
  });

  it('are kept with the read and added up by status', () => {
    const store = StagingStore.open(join(tempDir(), 'm.db'));
    const read = (path: string) => beginRead(store, { path, format: 'csv', command: 'export-source', sizeBytes: 1, options: {} });
    finishRead(store, read('/a.csv'), { ...counts, added: 1, skippedByReason: { '--since': 3, 'transform t.mjs': 1 } }, undefined);
    finishRead(store, read('/b.csv'), { ...counts, skippedByReason: { '--since': 4 } }, undefined);
    expect(latestRead(store, '/a.csv')).toMatchObject({ counts: { ...counts, added: 1 }, skippedBy: { '--since': 3, 'transform t.mjs': 1 } });
    const report = stagingReport(store);
    expect(report.sources.map((s) => [s.added, s.skippedBy])).toEqual([
      [1, { '--since': 3, 'transform t.mjs': 1 }],
      [0, { '--since': 4 }],
    ]);
    expect(report.sourceTotals).toMatchObject({ skipped: 8, added: 1, skippedBy: { '--since': 7, 'transform t.mjs': 1 } });
    store.close();
  });

  it('status reads a file staged before they were kept, read-only and as it is', () => {
    const file = join(tempDir(), 'old.db');
    const db = openDatabase(file);
    // Every migration but the one that added the reasons (the last when this was written).
    migrate(db, MIGRATIONS.slice(0, -1));
    db.pragma(`application_id = ${STAGING_APPLICATION_ID}`);
    db.prepare("INSERT INTO sources (path, format) VALUES ('/old.csv', 'csv')").run();
    db.prepare("INSERT INTO source_reads (source_id, command, status, size_bytes, rows_read, rows_skipped, started_at) VALUES (1, 'export-source', 'done', 1, 5, 2, 'x')").run();
    db.close();
    const store = StagingStore.open(file, { readOnly: true });
    expect(stagingReport(store).sources).toMatchObject([{ rowsRead: 5, skipped: 2, added: 0, skippedBy: {} }]);
    store.close();
  });
});
