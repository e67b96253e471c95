/**
 * Derived rows (identity links, group updates) are packed into property blocks like a source's
 * rows, and read and sent exactly as when they were stored as JSONB, one per row: a staging file
 * that a build before blocks wrote (its derived rows JSONB) is compared, page for page of what
 * import sends, with one whose rows were packed, before and after the rows are changed
 * (re-timed, withdrawn, written back unpacked). On real staging files.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodedEventJson } from '../../src/delivery/staged-json.js';
import type { StagedEvent } from '../../src/events/staged-event.js';
import { groupUpdateEvent } from '../../src/passes/group-updates.js';
import { linkEvent } from '../../src/passes/identity-links.js';
import { bindProject, PendingEvents } from '../../src/staging/delivery-store.js';
import { DerivedRows } from '../../src/staging/derived-rows.js';
import { IS_BLOCK_ROW } from '../../src/staging/event-json-sql.js';
import { propertiesSql } from '../../src/staging/property-blocks.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { stepsBack } from '../../src/staging/steps-back.js';
import { stageWithUuid } from '../../src/staging/uuid-keys.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const RUN = '7c9e6679-7425-40de-944b-e07fc1f09d45';
const T = Date.UTC(2025, 8, 1);
const LINKS = 600;

/** Ids and properties whose text JSON can spell more than one way. */
const DEVICES = ['$device:é✓', 'quote"back\\slash', 'emoji 😀', 'line\nbreak\ttab', 'lone \ud800 surrogate', 'plain'];
const GROUP_PROPERTIES = ['{"plan":"pro","n":1.50,"big":12345678901234567890,"e":1E3,"esc":"\\u00e9\\/","nested":{"a":[1,2,{"b":null}]}}', '{}', '{"name":"Zürich ✓"}'];

/** Links as the identity pass gives them: times in no order, uuids sorted. */
function links(count: number, salt: string): StagedEvent[] {
  const random = seededRandom(count);
  const events = Array.from({ length: count }, (_, i) => linkEvent(`user-${salt}-${i}`, `${DEVICES[i % DEVICES.length]}-${salt}-${i}`, T + Math.floor(random() * 86_400_000)));
  return events.sort((a, b) => Buffer.compare(Buffer.from(a.uuid), Buffer.from(b.uuid)));
}

function groupUpdates(salt: string): StagedEvent[] {
  return GROUP_PROPERTIES.map((p, i) => groupUpdateEvent({ type: 'company', key: `acme-${salt}-${i}` }, Buffer.from(`v${i}`), p, T + 1000 * (GROUP_PROPERTIES.length - i)));
}

/** Stages derived rows as builds before property blocks did: one JSONB value per row. */
function stageAsJsonb(store: StagingStore, events: readonly StagedEvent[]): void {
  const insert = store.db.prepare(
    `INSERT INTO events (seq, uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line)
     VALUES (?, ?, ?, ?, ?, ?, jsonb_set(jsonb(?), '$."$geoip_disable"', json('true'), '$."$import_source"', ?, '$."$import_run"', ?), 0, 0)`,
  );
  store.transaction(() => {
    for (const e of events) {
      const source = e.event === '$identify' ? 'identity-links' : 'group-updates';
      stageWithUuid(store, e.uuid, (seq) => insert.run(seq, e.uuid, e.kind, e.event, e.distinctId, e.timestampMs, e.propertiesJson, source, RUN));
    }
  });
}

/** Every event import would send the project, as the JSON text it sends, in send order. */
function sent(store: StagingStore): string[] {
  const project = bindProject(store, { name: 'test', role: 'test', host: 'http://127.0.0.1' });
  const pending = new PendingEvents(store, project.id);
  return pending.page(undefined, 10_000).map(encodedEventJson);
}

function withdrawnTexts(store: StagingStore): string[] {
  return store.db.prepare('SELECT properties FROM withdrawn_events ORDER BY uuid').pluck().all() as string[];
}

const blockRows = (store: StagingStore): number => store.db.prepare(`SELECT count(*) FROM events WHERE ${IS_BLOCK_ROW}`).pluck().get() as number;

/** Re-times, withdraws and rewrites (unpacked, as a session id is set) the same rows in a store. */
function change(store: StagingStore, derived: DerivedRows, events: readonly StagedEvent[]): void {
  const seqOf = (e: StagedEvent): number => derived.state(e.uuid)!.seq;
  store.transaction(() => {
    derived.moveTo(seqOf(events[0]!), T - 5000);
    derived.withdraw(seqOf(events[1]!), 'replaced');
    store.db.prepare(`UPDATE events SET properties = jsonb_set(${propertiesSql('properties')}, '$."$session_id"', 'S') WHERE seq = ?`).run(seqOf(events[2]!));
  });
}

function open(name: string): StagingStore {
  return StagingStore.open(join(tempDir(), name));
}

describe('derived rows in property blocks', () => {
  it('packs them in blocks of 256 rows in time order, and import sends what it sent when they were JSONB', () => {
    const packed = open('packed.db');
    const older = open('older.db');
    try {
      const first = [...links(LINKS, 'a'), ...groupUpdates('a')];
      const derived = new DerivedRows(packed, RUN);
      expect(packed.transaction(() => derived.stageAll(links(LINKS, 'a')) + derived.stageAll(groupUpdates('a')))).toBe(LINKS + GROUP_PROPERTIES.length);
      stageAsJsonb(older, first);
      expect(blockRows(packed)).toBe(LINKS + GROUP_PROPERTIES.length);
      expect(blockRows(older)).toBe(0);
      // Flushed every 256 rows: 3 blocks for the links, 1 for the updates.
      expect(packed.db.prepare('SELECT count(*) FROM property_blocks').pluck().get()).toBe(4);
      // Seqs, and so block rows, follow time within each call.
      const times = packed.db.prepare('SELECT timestamp_ms FROM events WHERE event = ? ORDER BY seq').pluck();
      const linkTimes = times.all('$identify') as number[];
      expect(linkTimes).toEqual([...linkTimes].sort((a, b) => a - b));
      expect(sent(packed)).toEqual(sent(older));

      // The older file gets new rows packed beside its JSONB ones; both files' rows change alike.
      const second = links(300, 'b');
      expect(new DerivedRows(older, RUN).stageAll(second)).toBe(300);
      expect(derived.stageAll(second)).toBe(300);
      expect(blockRows(older)).toBe(300);
      for (const store of [packed, older]) {
        const rows = new DerivedRows(store, RUN);
        change(store, rows, first);
        change(store, rows, second);
      }
      expect(blockRows(packed)).toBe(LINKS + GROUP_PROPERTIES.length + 300 - 4);
      expect(withdrawnTexts(packed)).toEqual(withdrawnTexts(older));
      expect(withdrawnTexts(packed)).toHaveLength(2);
      const after = sent(packed);
      expect(after).toEqual(sent(older));
      expect(after).toHaveLength(LINKS + GROUP_PROPERTIES.length + 300 - 2);
      expect(after.filter((json) => json.includes('"$session_id":"S"'))).toHaveLength(2);
    } finally {
      packed.close();
      older.close();
    }
  });

  it("keeps import's count of steps back an upper bound when a packed row is re-timed", () => {
    const store = open('steps.db');
    try {
      const derived = new DerivedRows(store, RUN);
      derived.stageAll(links(20, 'f'));
      expect(stepsBack(store.db)).toBe(0);
      // The latest row (the last seq) moved before all the others: one step back.
      derived.moveTo(store.db.prepare('SELECT max(seq) FROM events').pluck().get() as number, T - 1);
      const kept = stepsBack(store.db);
      store.db.prepare("DELETE FROM meta WHERE key = 'send_order_steps_back'").run();
      expect(stepsBack(store.db)).toBe(1);
      expect(kept).toBeGreaterThanOrEqual(1);
    } finally {
      store.close();
    }
  });

  it('stages a uuid once, and a transaction undone takes the rows and their blocks with it', () => {
    const store = open('s.db');
    try {
      const derived = new DerivedRows(store, RUN);
      const events = links(10, 'c');
      expect(derived.stageAll([events[0]!, events[1]!, events[0]!])).toBe(2);
      expect(derived.stageAll(events)).toBe(8);
      expect(() =>
        store.transaction(() => {
          derived.stageAll(links(300, 'd'));
          throw new Error('stopped');
        }),
      ).toThrow('stopped');
      const count = (sql: string): unknown => store.db.prepare(sql).pluck().get();
      expect([count('SELECT count(*) FROM events'), count('SELECT count(*) FROM property_blocks')]).toEqual([10, 2]);
      // The writer was left with no open block: the next rows are staged and read back.
      expect(derived.stageAll(links(5, 'e'))).toBe(5);
      expect(sent(store)).toHaveLength(15);
    } finally {
      store.close();
    }
  });
});
