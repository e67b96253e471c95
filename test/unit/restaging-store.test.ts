/**
 * What happens to staged rows when sources are staged again, on a real staging file: rows
 * withdrawn with their delivery records and counters, reads undone after an import sent part
 * of them, rows read again with another time zone, and the table of content-shaping options.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentChanges, describeChange, describeKept, keptOptions } from '../../src/stage-sources/content-options.js';
import { EventKind, type StagedEvent } from '../../src/events/staged-event.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { EventBatchBuilder } from '../../src/staging/event-batch.js';
import { bindProject, DeliveryCheckpoint, findProjectRecord, PendingEvents, totalStaged } from '../../src/staging/delivery-store.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { startRun } from '../../src/staging/import-runs.js';
import { abandonRead, beginRead, finishRead } from '../../src/staging/source-reads.js';
import { stagingReport } from '../../src/staging/staging-report.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { deliveredAmongSelected, selectGoneRows, withdrawnByRead, withdrawSelected } from '../../src/staging/withdrawals.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const done = { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 };

function event(n: number, overrides: Partial<StagedEvent> = {}): StagedEvent {
  return {
    uuid: uuidBytes(`01900000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`),
    kind: EventKind.event,
    event: n % 2 === 0 ? 'even' : 'odd',
    distinctId: 'd',
    timestampMs: 1_700_000_000_000 + n,
    propertiesJson: '{}',
    ...overrides,
  };
}

function read(store: StagingStore, path = '/data/a.csv', options: Record<string, unknown> = {}): number {
  return beginRead(store, { path, format: 'csv', command: 'export-source', sizeBytes: 1, options });
}

function deliver(store: StagingStore, project: string, seqs: number[]): number {
  const record = bindProject(store, { name: project, role: project === 'prod' ? 'production' : 'test', host: 'http://127.0.0.1:1' });
  const run = startRun(store, { projectId: record.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
  new DeliveryCheckpoint(store, record.id, run.id).delivered(seqs);
  return record.id;
}

function pendingSeqs(store: StagingStore, projectId: number): number[] {
  return new PendingEvents(store, projectId).page(undefined, 1000).map((e) => e.seq);
}

describe('withdrawing staged rows', () => {
  it('takes rows gone from a file out of the send set, with their delivery records and the counters', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    const first = read(store);
    writer.write(
      first,
      [1, 2, 3, 4].map((n) => ({ line: n + 1, raw: 'r', event: event(n) })),
    );
    finishRead(store, first, done, undefined);
    const test = deliver(store, 'test', [1, 2]);

    // The file again, without rows 2 and 4 (seqs 2 and 4): one of them delivered to test.
    const second = read(store);
    writer.write(
      { readId: second, earlierReads: new Set([first]) },
      [1, 3, 5].map((n) => ({ line: n + 1, raw: 'r', event: event(n) })),
    );
    expect(selectGoneRows(store, second, [first])).toBe(2);
    expect(deliveredAmongSelected(store)).toEqual({
      count: 1,
      first: [{ path: '/data/a.csv', line: 3, uuid: '01900000-0000-7000-8000-000000000002', projects: ['test'] }],
      projects: [{ name: 'test', count: 1 }],
    });
    expect(withdrawSelected(store, second, 'gone')).toBe(2);
    finishRead(store, second, done, undefined);

    expect(totalStaged(store)).toBe(3);
    expect(findProjectRecord(store, 'test')).toMatchObject({ delivered: 1 });
    expect(pendingSeqs(store, test)).toEqual([3, 5]);
    expect(withdrawnByRead(store, second)).toEqual([{ reason: 'gone', count: 2, delivered: [{ project: 'test', count: 1 }] }]);
    const report = stagingReport(store);
    expect(report.topEvents).toEqual([{ name: 'odd', count: 3 }]);
    expect(report.withdrawn).toEqual({ count: 2, delivered: [{ project: 'test', count: 1 }] });
    expect(report.sources[0]).toMatchObject({ withdrawn: 2 });
    expect(report.projects[0]).toMatchObject({ delivered: 1, pending: 2 });
    store.close();
  });

  it('never takes a seq handed out again for delivered', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    const first = read(store);
    writer.write(first, [
      { line: 2, raw: 'r', event: event(1) },
      { line: 3, raw: 'r', event: event(2) },
    ]);
    finishRead(store, first, done, undefined);
    const test = deliver(store, 'test', [2]);
    // The delivered row is the last one: once it is gone, SQLite hands its seq out again.
    const second = read(store);
    writer.write({ readId: second, earlierReads: new Set([first]) }, [{ line: 2, raw: 'r', event: event(1) }]);
    selectGoneRows(store, second, [first]);
    withdrawSelected(store, second, 'gone');
    finishRead(store, second, done, undefined);
    const third = read(store, '/data/b.csv');
    writer.write(third, [{ line: 2, raw: 'r', event: event(9) }]);
    expect(store.db.prepare('SELECT seq FROM events WHERE uuid = ?').pluck().get(event(9).uuid)).toBe(2);
    // Row 1 was never delivered; the new row has the withdrawn row's seq and is pending too.
    expect(pendingSeqs(store, test)).toEqual([1, 2]);
    expect(findProjectRecord(store, 'test')).toMatchObject({ delivered: 0 });
    store.close();
  });

  it('undoes a failed read, keeping what an import had already sent of it as withdrawn', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    const partial = read(store);
    writer.write(
      partial,
      [1, 2, 3].map((n) => ({ line: n + 1, raw: 'r', event: event(n) })),
    );
    deliver(store, 'test', [3]);
    abandonRead(store, partial, 'bad input');
    expect(totalStaged(store)).toBe(0);
    expect(withdrawnByRead(store, partial)).toEqual([{ reason: 'undone', count: 1, delivered: [{ project: 'test', count: 1 }] }]);
    expect(findProjectRecord(store, 'test')).toMatchObject({ delivered: 0 });
    store.close();
  });
});

describe('rows read with another time zone', () => {
  function zoned(n: number, timestampMs: number, key: number) {
    const batch = new EventBatchBuilder();
    batch.add(n + 1, event(n, { timestampMs, uuid: uuidBytes(`0190${timestampMs.toString(16).slice(-4)}-0000-7000-8000-${n.toString(16).padStart(12, '0')}`) }), Buffer.alloc(16, key));
    return batch.finish();
  }

  it('rejects the same row under another uuid, naming the other file and both zones; replaces it from the same file under --replace-changed', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    const a = read(store, '/data/a.csv', { timezone: 'America/New_York' });
    expect(writer.writeBatch({ readId: a, timezone: 'America/New_York' }, zoned(1, 1_700_000_000_000, 7), [])).toMatchObject({ staged: 1 });
    finishRead(store, a, done, undefined);
    const b = read(store, '/data/b.csv', { timezone: 'Europe/Paris' });
    const counts = writer.writeBatch({ readId: b, timezone: 'Europe/Paris' }, zoned(1, 1_700_000_000_000 - 6 * 3600_000, 7), []);
    expect(counts).toMatchObject({ staged: 0, rejected: 1 });
    expect(counts.conflicts[0]!.problem).toMatchObject({ reason: 'conflicts_with_staged' });
    expect(counts.conflicts[0]!.problem.message).toMatch(/staged from \/data\/a\.csv:2 at .* \(--timezone America\/New_York\); read here with --timezone Europe\/Paris it is at/);
    // Another row (another key) at the same time is no conflict: two files, two zones.
    expect(writer.writeBatch({ readId: b, timezone: 'Europe/Paris' }, zoned(2, 1_700_000_000_000, 8), [])).toMatchObject({ staged: 1 });
    finishRead(store, b, done, undefined);

    const again = read(store, '/data/a.csv', { timezone: 'Europe/Paris' });
    expect(writer.writeBatch({ readId: again, earlierReads: new Set([a]), replace: true, timezone: 'Europe/Paris' }, zoned(1, 1_700_000_000_000 - 6 * 3600_000, 7), [])).toMatchObject({
      staged: 1,
      rejected: 0,
    });
    expect(withdrawnByRead(store, again)).toEqual([{ reason: 'replaced', count: 1, delivered: [] }]);
    expect(totalStaged(store)).toBe(2);
    store.close();
  });
});

describe('content-shaping options', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Array<[string, boolean]>]>([
    ['the same options', { timezone: null, groups: [] }, { timezone: null, groups: [] }, []],
    ['a zone added widens', { timezone: null }, { timezone: 'Europe/Paris' }, [['--timezone', true]]],
    ['a zone changed', { timezone: 'UTC' }, { timezone: 'Europe/Paris' }, [['--timezone', false]]],
    ['a zone removed', { timezone: 'UTC' }, { timezone: null }, [['--timezone', false]]],
    ['an earlier --min-time widens', { minTime: '2000-01-01T00:00:00.000Z' }, { minTime: '1990-01-01T00:00:00.000Z' }, [['--min-time', true]]],
    ['a later --min-time', { minTime: '2000-01-01T00:00:00.000Z' }, { minTime: '2010-01-01T00:00:00.000Z' }, [['--min-time', false]]],
    ['--min-time not recorded by an older migrate: it had no bound', {}, { minTime: '2000-01-01T00:00:00.000Z' }, [['--min-time', false]]],
    ['trimming not recorded by an older migrate: it did not trim', {}, { encoding: 'utf-8', delimiter: ',', trim: true }, [['--trim/--no-trim', false]]],
    ['a group added', {}, { groups: [{ type: 'company', property: 'company_id' }] }, [['--group', false]]],
    ['--no-infer-types', { inferTypes: true }, { inferTypes: false }, [['--no-infer-types', false]]],
    ['--set-once corrected', { setOnce: ['frist_seen'] }, { setOnce: ['first_seen'] }, [['--set-once', false]]],
    ['another mapping content', { mapping: 'sha256:a' }, { mapping: 'sha256:b' }, [['--map', false]]],
    ['the same mapping at another path', { map: 'a.json', mapping: 'sha256:a' }, { map: 'b.json', mapping: 'sha256:a' }, []],
    ['columns in another order', { columns: { event: 'e', distinct_id: 'u' } }, { columns: { distinct_id: 'u', event: 'e' } }, []],
    [
      '--key-column and --group-type',
      { groupType: 'company', keyColumn: 'id' },
      { groupType: 'team', keyColumn: 'key' },
      [
        ['--group-type', false],
        ['--key-column', false],
      ],
    ],
    ['--no-geoip added', { geoip: true }, { geoip: false }, [['--no-geoip', false]]],
    ['GeoIP not recorded by an older migrate is not compared', {}, { geoip: false }, []],
  ])('%s', (_name, before, after, expected) => {
    expect(contentChanges(before, after).map((c) => [c.option.flag, c.widens])).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string[], Array<[string, unknown]>]>([
    [
      'an older read: untrimmed, comma, UTF-8, no bound',
      {},
      { encoding: 'utf-8', delimiter: ',', trim: true, minTime: '2000-01-01T00:00:00.000Z' },
      ['encoding', 'delimiter', 'trim', 'minTime'],
      [
        ['minTime', null],
        ['trim', false],
      ],
    ],
    ['given explicitly, nothing is kept', {}, { trim: true, minTime: '2000-01-01T00:00:00.000Z' }, [], []],
    [
      'a later read: its values',
      { delimiter: ';', segmentGroupType: 'account' },
      { delimiter: ',', segmentGroupType: 'company' },
      ['delimiter', 'segmentGroupType'],
      [
        ['segmentGroupType', 'account'],
        ['delimiter', ';'],
      ],
    ],
    ['options that do not inherit are compared, not kept', { timezone: 'UTC' }, { timezone: null }, ['timezone'], []],
  ])('kept as first staged: %s', (_name, before, after, defaulted, expected) => {
    expect(keptOptions(before, after, defaulted).map((k) => [k.option.key, k.value])).toEqual(expected);
  });

  it('says what is kept and how to change it', () => {
    const [trim] = keptOptions({}, { trim: true }, ['trim']);
    expect(describeKept(trim!)).toBe('kept as first staged: values not trimmed (--trim/--no-trim); pass --trim to change it, a change refused unless --replace-changed');
    const [bound] = keptOptions({}, { minTime: '2000-01-01T00:00:00.000Z' }, ['minTime']);
    expect(describeKept(bound!)).toBe('kept as first staged: no bound (--min-time); pass --min-time 2000-01-01 to change it, a change refused unless --replace-changed');
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, Array<[string, boolean]>]>([
    ['a transform added', {}, { transform: 'sha256:a', transformFile: 't.mjs' }, [['--transform', false]]],
    ['the same transform at another path', { transform: 'sha256:a', transformFile: 't.mjs' }, { transform: 'sha256:a', transformFile: 'x/u.mjs' }, []],
    ['a transform changed', { transform: 'sha256:a' }, { transform: 'sha256:b' }, [['--transform', false]]],
    ['a transform removed', { transform: 'sha256:a' }, {}, [['--transform', false]]],
    ['--only-events added', {}, { onlyEvents: ['a'] }, [['--only-events', false]]],
    ['--only-events longer widens', { onlyEvents: ['a'] }, { onlyEvents: ['a', 'b'] }, [['--only-events', true]]],
    ['--only-events removed widens', { onlyEvents: ['a'] }, {}, [['--only-events', true]]],
    ['--only-events other', { onlyEvents: ['a'] }, { onlyEvents: ['b'] }, [['--only-events', false]]],
    ['--skip-events shorter widens', { skipEvents: ['a', 'b'] }, { skipEvents: ['b'] }, [['--skip-events', true]]],
    ['--skip-events longer', { skipEvents: ['a'] }, { skipEvents: ['a', 'b'] }, [['--skip-events', false]]],
    ['an earlier --since widens', { since: '2024-02-01T00:00:00.000Z' }, { since: '2024-01-01T00:00:00.000Z' }, [['--since', true]]],
    ['a later --since', { since: '2024-01-01T00:00:00.000Z' }, { since: '2024-02-01T00:00:00.000Z' }, [['--since', false]]],
    ['a later --until widens', { until: '2024-01-01T00:00:00.000Z' }, {}, [['--until', true]]],
    ['an --until added', {}, { until: '2024-01-01T00:00:00.000Z' }, [['--until', false]]],
  ])('filters and transform: %s', (_name, before, after, expected) => {
    expect(contentChanges(before, after).map((c) => [c.option.flag, c.widens])).toEqual(expected);
  });

  it('says what each was and is', () => {
    const [group, zone] = contentChanges({ timezone: 'UTC' }, { groups: [{ type: 'company', property: 'company_id' }], timezone: 'Europe/Paris' }).sort((a, b) =>
      a.option.flag.localeCompare(b.option.flag),
    );
    expect(describeChange(group!)).toBe('--group: was none, now company=company_id');
    expect(describeChange(zone!)).toBe('--timezone: was UTC, now Europe/Paris');
  });
});
