/**
 * The steps back of the staging order (src/staging/steps-back.ts), kept between counts: a count
 * after more rows were staged reads only those and agrees with a count over every row; rows taken
 * out start it over.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { EventKind } from '../../src/events/staged-event.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { beginRead } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { stepsBack } from '../../src/staging/steps-back.js';
import { selectRow, withdrawSelected } from '../../src/staging/withdrawals.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

/** Stages one read of rows at these minutes (in this order); returns its id. */
function stageRows(store: StagingStore, path: string, minutes: number[], first: number): number {
  const readId = beginRead(store, { path, format: 'jsonl', command: 'export-source', sizeBytes: 1, options: {} });
  const rows = minutes.map((minute, i) => ({
    line: i + 1,
    raw: 'r',
    event: {
      uuid: uuidBytes(`01900000-0000-7000-8000-${(first + i).toString(16).padStart(12, '0')}`),
      kind: EventKind.event,
      event: 'e',
      distinctId: 'd',
      timestampMs: 1_700_000_000_000 + minute * 60_000,
      propertiesJson: '{}',
    },
  }));
  new EventWriter(store).write(readId, rows);
  return readId;
}

/** A count over every row: the mark left by earlier counts removed. */
function countedAfresh(store: StagingStore): number {
  store.db.prepare("DELETE FROM meta WHERE key = 'send_order_steps_back'").run();
  return stepsBack(store.db);
}

it('counts the rows staged since its last count, and agrees with a count over every row', () => {
  const store = StagingStore.open(join(tempDir(), 's.db'));
  try {
    stageRows(store, '/a.jsonl', [5, 3, 4, 1, 9], 0);
    expect(stepsBack(store.db)).toBe(2);
    stageRows(store, '/b.jsonl', [2, 8, 7, 10], 100);
    // The second file starts before the first one ended: one step back there, one inside it.
    const read = store.db.prepare("SELECT json_extract(value, '$.seq') FROM meta WHERE key = 'send_order_steps_back'").pluck();
    const before = read.get() as number;
    expect(stepsBack(store.db)).toBe(4);
    expect(read.get() as number).toBeGreaterThan(before);
    expect(countedAfresh(store)).toBe(4);
  } finally {
    store.close();
  }
});

it('starts over when rows were taken out since', () => {
  const store = StagingStore.open(join(tempDir(), 's.db'));
  try {
    const readId = stageRows(store, '/a.jsonl', [5, 3, 4, 1, 9], 0);
    expect(stepsBack(store.db)).toBe(2);
    const seq = store.db.prepare('SELECT seq FROM events WHERE line = 4 AND read_id = ?').pluck().get(readId) as number;
    selectRow(store, seq);
    store.transaction(() => withdrawSelected(store, readId, 'replaced'));
    expect(stepsBack(store.db)).toBe(1);
    expect(countedAfresh(store)).toBe(1);
  } finally {
    store.close();
  }
});
