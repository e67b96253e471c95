import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventKind, type StagedEvent } from '../../src/events/staged-event.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { blockRef, compressBlock, packBlock, refBlockId, UnpackedBlock } from '../../src/staging/property-block-codec.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { PropertyBlockCache, propertiesSql, propertiesTextSql } from '../../src/staging/property-blocks.js';
import { beginRead } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

function event(n: number, propertiesJson: string): StagedEvent {
  return {
    uuid: uuidBytes(`01900000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`),
    kind: EventKind.event,
    event: 'e',
    distinctId: `d${n % 7}`,
    timestampMs: 1_700_000_000_000 + n,
    propertiesJson,
  };
}

const texts = (n: number): string[] => Array.from({ length: n }, (_, i) => JSON.stringify({ i, city: i % 3 === 0 ? 'Zürich' : '東京', note: 'x'.repeat(i % 50) }));

describe('property blocks', () => {
  it.each([
    ['none', []],
    ['one empty object', ['{}']],
    ['rows of several scripts', texts(300)],
  ])('a block gives back each row as it was: %s', (_name, rows) => {
    const block = UnpackedBlock.fromStored(compressBlock(packBlock(rows.map((t) => Buffer.from(t)))));
    expect(rows.map((_, i) => block.text(i))).toEqual(rows);
    expect(block.text(rows.length)).toBeUndefined();
  });

  it('a cache bounded in blocks keeps the most recently used; clearing it keeps only the pinned block', () => {
    const cache = new PropertyBlockCache(3);
    const block = UnpackedBlock.fromStored(compressBlock(packBlock([Buffer.from('{}')])));
    for (const id of [1, 2, 3]) cache.put(id, block);
    cache.get(1);
    cache.put(4, block);
    expect([1, 2, 3, 4].map((id) => cache.has(id))).toEqual([true, false, true, true]);
    cache.pin(3);
    cache.clear();
    expect([1, 3, 4].map((id) => cache.has(id))).toEqual([false, true, false]);
  });

  it('a reference is never read as JSONB: the JSON functions refuse it', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const ref = blockRef(2 ** 47 + 5, 300);
    expect(refBlockId(ref)).toBe(2 ** 47 + 5);
    expect(() => store.db.prepare('SELECT json(?)').get(ref)).toThrow(/malformed JSON/);
    store.close();
  });

  it('stages rows in blocks and reads them back exactly, beside rows stored as text and as JSONB', () => {
    const file = join(tempDir(), 's.db');
    const store = StagingStore.open(file);
    const writer = new EventWriter(store);
    const rows = texts(700);
    const readId = beginRead(store, { path: '/data/a.jsonl', format: 'jsonl', command: 'export-source', sizeBytes: 1, options: {} });
    // A repeated row (staged once) and rows going one by one around it.
    const entries = rows.map((text, i) => ({ line: i + 1, raw: '', event: event(i, text) }));
    entries.splice(123, 0, { line: 9999, raw: '', event: event(5, rows[5]!) });
    expect(writer.write(readId, entries)).toMatchObject({ staged: 700, duplicates: 1 });
    // Rows as older versions stored them.
    const insert = store.db.prepare("INSERT INTO events (uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES (?, 0, 'old', 'o', 1, ?, ?, 0)");
    insert.run(uuidBytes('01900000-0000-7000-8000-100000000001'), '{"stored":"as text"}', readId);
    store.db
      .prepare("INSERT INTO events (uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES (?, 0, 'old', 'o', 2, jsonb(?), ?, 0)")
      .run(uuidBytes('01900000-0000-7000-8000-100000000002'), '{"stored":"as JSONB"}', readId);
    store.close();

    // Another connection (a cold cache) reads them all.
    const again = StagingStore.open(file);
    const staged = again.db
      .prepare(`SELECT ${propertiesTextSql('properties')} AS p FROM events ORDER BY seq`)
      .pluck()
      .all();
    expect(staged).toEqual([...rows, '{"stored":"as text"}', '{"stored":"as JSONB"}']);
    expect(again.db.prepare('SELECT count(*) FROM property_blocks').pluck().get()).toBe(3);
    const cities = again.db
      .prepare(`SELECT ${propertiesSql('properties')} ->> '$.city' FROM events WHERE event = 'e' ORDER BY seq DESC`)
      .pluck()
      .all();
    expect(cities).toEqual(rows.map((t) => (JSON.parse(t) as { city: string }).city).reverse());
    // A change after staging is written back unpacked, and read like the rest.
    again.db.prepare(`UPDATE events SET properties = jsonb_set(${propertiesSql('properties')}, '$.i', 'changed') WHERE line = 1`).run();
    expect(
      again.db
        .prepare(`SELECT ${propertiesTextSql('properties')} FROM events WHERE line = 1`)
        .pluck()
        .get(),
    ).toBe(rows[0]!.replace('"i":0', '"i":"changed"'));
    again.close();
  });

  it('a batch undone takes its block with it: nothing refers to a block that is not there', () => {
    const store = StagingStore.open(join(tempDir(), 's.db'));
    const writer = new EventWriter(store);
    const readId = beginRead(store, { path: '/data/a.jsonl', format: 'jsonl', command: 'export-source', sizeBytes: 1, options: {} });
    expect(() =>
      store.transaction(() => {
        writer.write(
          readId,
          texts(60).map((text, i) => ({ line: i + 1, raw: '', event: event(i, text) })),
        );
        throw new Error('undone');
      }),
    ).toThrow('undone');
    expect(store.db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(0);
    expect(store.db.prepare('SELECT count(*) FROM property_blocks').pluck().get()).toBe(0);
    writer.write(
      readId,
      texts(60).map((text, i) => ({ line: i + 1, raw: '', event: event(i, text) })),
    );
    expect(
      store.db
        .prepare(`SELECT ${propertiesTextSql('properties')} FROM events ORDER BY seq`)
        .pluck()
        .all(),
    ).toEqual(texts(60));
    store.close();
  });
});
