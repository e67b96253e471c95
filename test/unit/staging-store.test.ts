import { hostname } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventKind, type StagedEvent } from '../../src/events/staged-event.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { RefusedError, StagingError } from '../../src/errors.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { jsonDepth, SQLITE_MAX_JSON_DEPTH as MAX_JSON_DEPTH } from '../../src/json/json-depth.js';
import { beginRead, finishRead, latestRead, partialReads, recordProgress, refusePartialReads } from '../../src/staging/source-reads.js';
import { listRejects, stagingReport } from '../../src/staging/staging-report.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';

const tempDir = useTempDir();

function event(n: number, overrides: Partial<StagedEvent> = {}): StagedEvent {
  const hex = n.toString(16).padStart(12, '0');
  return {
    uuid: uuidBytes(`01900000-0000-7000-8000-${hex}`),
    kind: EventKind.event,
    event: 'e',
    distinctId: 'd',
    timestampMs: 1_700_000_000_000 + n,
    propertiesJson: '{}',
    ...overrides,
  };
}

function read(store: StagingStore, path = '/data/a.csv'): number {
  return beginRead(store, { path, format: 'csv', command: 'export-source', sizeBytes: 1, options: {} });
}

const done = { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 };

describe('staging store', () => {
  it('counts new, already staged, duplicate and conflicting rows', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    const first = read(store);
    expect(
      writer.write(first, [
        { line: 2, raw: 'r', event: event(1) },
        { line: 3, raw: 'r', event: event(1) },
      ]),
    ).toMatchObject({ staged: 1, duplicates: 1 });
    finishRead(store, first, done, undefined);
    const second = read(store);
    const counts = writer.write(second, [
      { line: 2, raw: 'r', event: event(1) },
      { line: 3, raw: 'r2', event: event(1, { event: 'renamed' }) },
      { line: 4, raw: 'r3', problem: { field: 'x', reason: 'bad_json', message: 'm' } },
    ]);
    expect(counts).toMatchObject({ staged: 0, alreadyStaged: 1, rejected: 2 });
    expect(counts.conflicts[0]!.problem.message).toContain('/data/a.csv:2 with a different event name ("e" then "renamed")');
    finishRead(store, second, done, undefined);
    expect(listRejects(store).map((r) => [r.line, r.reason])).toEqual([
      [3, 'conflicts_with_staged'],
      [4, 'bad_json'],
    ]);
    expect(stagingReport(store).events.count).toBe(1);
    store.close();
  });

  it('takes the same properties in another key order as already staged, and other values as a conflict', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    writer.write(read(store), [{ line: 2, raw: 'r', event: event(1, { propertiesJson: '{"a":1,"b":{"c":2,"d":[1,{"e":3,"f":4}]}}' }) }]);
    const reordered = writer.write(read(store, '/data/b.csv'), [
      { line: 2, raw: 'r', event: event(1, { propertiesJson: '{"b":{"d":[1,{"f":4,"e":3}],"c":2},"a":1}' }) },
      { line: 3, raw: 'r', event: event(1, { propertiesJson: '{"b":{"d":[{"f":4,"e":3},1],"c":2},"a":1}' }) },
    ]);
    expect(reordered).toMatchObject({ alreadyStaged: 1, rejected: 1 });
    expect(reordered.conflicts[0]!.problem.message).toContain('with a different set of properties');
    store.close();
  });

  it('writes many rows at once, and row by row around rows staged before, keeping their order', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    writer.write(read(store), [
      { line: 2, raw: 'r', event: event(75) },
      { line: 3, raw: 'r', event: event(110) },
    ]);
    const entries = Array.from({ length: 130 }, (_, i) => ({ line: i + 2, raw: `row ${i}`, event: event(i, i === 110 ? { distinctId: 'other' } : {}) }));
    const second = read(store, '/data/b.csv');
    const counts = writer.write(second, entries);
    finishRead(store, second, done, undefined);
    expect(counts).toMatchObject({ staged: 128, alreadyStaged: 1, duplicates: 0, rejected: 1 });
    expect(counts.conflicts).toMatchObject([{ line: 112, problem: { reason: 'conflicts_with_staged' } }]);
    expect(listRejects(store)).toMatchObject([{ path: '/data/b.csv', line: 112, raw: 'row 110' }]);
    const seqOrder = (store.db.prepare('SELECT timestamp_ms AS t FROM events ORDER BY seq').all() as Array<{ t: number }>).map((r) => r.t - 1_700_000_000_000);
    expect(seqOrder).toEqual([75, 110, ...Array.from({ length: 130 }, (_, i) => i).filter((i) => i !== 75 && i !== 110)]);
    expect(stagingReport(store).topEvents).toEqual([{ name: 'e', count: 130 }]);
    store.close();
  });

  it('stores properties nested as deep as buildEvent lets through, and gives back their text', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const deep = '{"a":'.repeat(MAX_JSON_DEPTH - 1) + '{"leaf":1}' + '}'.repeat(MAX_JSON_DEPTH - 1);
    expect(jsonDepth(deep)).toBe(MAX_JSON_DEPTH);
    const entries = Array.from({ length: 60 }, (_, i) => ({ line: i + 2, raw: 'r', event: event(i, { propertiesJson: i === 55 ? deep : '{"b":"x"}' }) }));
    expect(new EventWriter(store).write(read(store), entries)).toMatchObject({ staged: 60 });
    expect(store.db.prepare(`SELECT ${STAGED_PROPERTIES_TEXT} AS p FROM events WHERE line = 57`).get()).toEqual({ p: deep });
    store.close();
  });

  it('keeps a read left unfinished by a process that died as partial, to be resumed, and import refuses meanwhile', () => {
    const path = join(tempDir(), 's.db');
    const crashed = StagingStore.open(path);
    const writer = new EventWriter(crashed);
    const ok = read(crashed, '/data/ok.csv');
    writer.write(ok, [{ line: 2, raw: 'r', event: event(1) }]);
    finishRead(crashed, ok, done, undefined);
    const partial = read(crashed, '/data/partial.csv');
    writer.write(partial, [
      { line: 2, raw: 'r', event: event(2) },
      { line: 3, raw: 'r', event: event(3, { event: 'other' }) },
    ]);
    recordProgress(crashed, partial, { chars: 40, line: 4, fingerprint: 'sha256:x' }, { ...done, rowsRead: 2, staged: 2 }, 'event,distinct_id,timestamp\n');
    crashed.db.close();

    const store = StagingStore.open(path, { lockFor: 'test' });
    expect(partialReads(store)).toMatchObject([{ path: '/data/partial.csv', command: 'export-source', line: 4 }]);
    const report = stagingReport(store);
    expect(report.events.count).toBe(3);
    expect(report.sources.map((s) => [s.status, s.progressLine])).toEqual([
      ['done', null],
      ['partial', 4],
    ]);
    expect(() => refusePartialReads(store)).toThrow(RefusedError);
    expect(() => refusePartialReads(store)).toThrow(/only partly staged:\n  \/data\/partial\.csv: export-source interrupted at line 4/);
    expect(latestRead(store, '/data/partial.csv')).toMatchObject({ status: 'reading', progress: { chars: 40, line: 4 }, header: 'event,distinct_id,timestamp\n' });
    store.close();
  });

  it('lets one writer at a time hold the lock, and takes over a dead holder', () => {
    const path = join(tempDir(), 's.db');
    const holder = StagingStore.open(path, { lockFor: 'export-source' });
    expect(() => StagingStore.open(path, { lockFor: 'import' })).toThrow(StagingError);
    expect(() => StagingStore.open(path, { lockFor: 'import' })).toThrow(/in use by process \d+ \(migrate export-source/);
    holder.close();
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), command: 'x', startedAt: '' }));
    StagingStore.open(path, { lockFor: 'import' }).close();
  });
});
