import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RefusedError } from '../../src/errors.js';
import { SOURCE_FORMATS } from '../../src/sources/formats.js';
import type { SourceInput } from '../../src/sources/open-input.js';
import { afterReading, fileReading } from '../../src/stage-sources/file-reading.js';
import { planFiles } from '../../src/stage-sources/file-plan.js';
import { fileSettings } from '../../src/stage-sources/file-settings.js';
import { beginRead, finishRead, type ReadRecord } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

function input(headText: string, encoding = 'utf-8'): SourceInput {
  return { path: '/data/a.csv', displayName: 'a.csv', sizeBytes: 1, compressed: false, encoding, headText, text: [] as never, fingerprint: () => undefined };
}

const done = { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 };

describe('how a file is read', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string[]]>([
    ['event,distinct_id,timestamp\n', {}, { encoding: 'utf-8', delimiter: ',', trim: true }, []],
    ['event;distinct_id;timestamp\n', {}, { encoding: 'utf-8', delimiter: ';', trim: true }, ['delimiter ";" found in the header (--delimiter to choose another)']],
    ['event;distinct_id;timestamp\n', { delimiter: '|', trim: false }, { encoding: 'utf-8', delimiter: '|', trim: false }, []],
  ])('CSV %j with %j records %j', (head, options, recorded, notices) => {
    const reading = fileReading(input(head), SOURCE_FORMATS.csv!, options);
    expect(reading.recorded).toEqual(recorded);
    expect(reading.notices).toEqual(notices);
    expect(reading.readerOptions.delimiter).toBe(recorded.delimiter);
  });

  it("a JSON file starting with [ is read as an array; a BOM's encoding is said", () => {
    const reading = fileReading(input('  [\n', 'utf-16le'), SOURCE_FORMATS.posthog!, {});
    expect(reading.source.layout).toBe('array');
    expect(reading.recorded).toEqual({ encoding: 'utf-16le' });
    expect(reading.notices).toEqual(['read as utf-16le, as its byte-order mark says', 'read as one JSON array of events']);
    expect(fileReading(input('{"event":"e"}\n'), SOURCE_FORMATS.posthog!, {}).source.layout).toBe('lines');
  });

  it('points to --encoding when more than a tenth of the rows, or more than 1,000, are not valid', () => {
    expect(afterReading(input(''), { rowsRead: 100, rejectedByReason: { invalid_utf8: 10 } })).toEqual([]);
    expect(afterReading(input(''), { rowsRead: 100, rejectedByReason: { invalid_utf8: 11 } })[0]).toMatch(/^11 of 100 rows are not valid UTF-8/);
    expect(afterReading(input(''), { rowsRead: 1_000_000, rejectedByReason: { invalid_utf8: 1001 } })).toHaveLength(1);
  });
});

describe('a file read again', () => {
  const plan = (store: StagingStore, recordedOptions: Record<string, unknown>) =>
    planFiles(store, [{ path: '/data/a.csv', displayName: 'a.csv', recordedOptions: { from: 'csv', ...recordedOptions }, replaceChanged: false, resumable: true, stream: false }]);

  it('with another encoding, delimiter or trimming is refused by the content options; a read by an older build counts as UTF-8, commas, untrimmed', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    try {
      finishRead(store, beginRead(store, { path: '/data/a.csv', format: 'csv', command: 'export-source', sizeBytes: 1, options: { map: null } }), done, undefined);
      expect(() => plan(store, { encoding: 'utf-8', delimiter: ',', trim: false })).not.toThrow();
      expect(() => plan(store, { encoding: 'utf-8', delimiter: ',', trim: true })).toThrow(RefusedError);
      expect(() => plan(store, { encoding: 'utf-8', delimiter: ',', trim: true })).toThrow('--trim/--no-trim: was values not trimmed, now values trimmed');
      expect(() => plan(store, { encoding: 'windows-1252', delimiter: ',', trim: false })).toThrow('--encoding: was utf-8, now windows-1252');
      expect(() => plan(store, { encoding: 'utf-8', delimiter: '\t', trim: false })).toThrow("--delimiter: was ',', now tab");
      // JSON formats record no delimiter or trimming: only the encoding is compared.
      expect(() => plan(store, { encoding: 'utf-8' })).not.toThrow();
      // --replace-changed lets the change through, as for every content option.
      expect(
        planFiles(store, [{ path: '/data/a.csv', displayName: 'a.csv', recordedOptions: { from: 'csv', trim: true }, replaceChanged: true, resumable: true, stream: false }])[0]!.changes.map(
          (c) => c.option.key,
        ),
      ).toEqual(['trim']);
    } finally {
      store.close();
    }
  });
});

describe("options kept from a file's earlier read", () => {
  const run = {
    readerOptions: { trim: true },
    rules: { nowMs: 0, minTimeMs: Date.UTC(2000, 0, 1) },
    recordedOptions: { minTime: '2000-01-01T00:00:00.000Z' },
    defaulted: ['encoding', 'delimiter', 'trim', 'minTime'],
  };
  const earlier = (options: Record<string, unknown>) => ({ options }) as unknown as ReadRecord;

  it('an older read: untrimmed, no bound, recorded so, and said', async () => {
    const settings = await fileSettings(input('event,distinct_id,timestamp\n'), SOURCE_FORMATS.csv!, run, earlier({}));
    expect(settings.reading.readerOptions.trim).toBe(false);
    expect(settings.rules.minTimeMs).toBe(Number.NEGATIVE_INFINITY);
    expect(settings.recorded).toMatchObject({ trim: false, minTime: null, encoding: 'utf-8', delimiter: ',' });
    expect(settings.reading.notices).toHaveLength(2);
  });

  it("a file is opened again in its earlier read's encoding; a stream, opened once, is not", async () => {
    const reopened: string[] = [];
    const file: SourceInput = { ...input('event,distinct_id,timestamp\n'), reopen: async (again) => (reopened.push(again!.encoding!), input('event,distinct_id,timestamp\n', again!.encoding)) };
    const settings = await fileSettings(file, SOURCE_FORMATS.csv!, run, earlier({ encoding: 'windows-1252', trim: true, delimiter: ',', minTime: '2000-01-01T00:00:00.000Z' }));
    expect(reopened).toEqual(['windows-1252']);
    expect(settings.recorded.encoding).toBe('windows-1252');
    const stream = await fileSettings(
      { ...input('event,distinct_id,timestamp\n', 'utf-16le'), sizeBytes: -1 },
      SOURCE_FORMATS.csv!,
      { ...run, readerOptions: { trim: true, encoding: 'windows-1252' } },
      earlier({ encoding: 'windows-1252' }),
    );
    expect(stream.input.encoding).toBe('utf-16le');
    expect(stream.reading.notices.some((n) => n.includes('--encoding'))).toBe(false);
  });
});
