/**
 * Rows the passes derive (identity links, group updates) are staged like every row: with
 * `$geoip_disable`, `$import_source` and the staging file's `$import_run`. Rows an earlier
 * version staged without them are stamped once, unless a project received them. On a real
 * staging file.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkEvent } from '../../src/passes/identity-links.js';
import { groupUpdateEvent } from '../../src/passes/group-updates.js';
import { DerivedRows } from '../../src/staging/derived-rows.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT } from '../helpers/staged-properties.js';

const tempDir = useTempDir();
const RUN = '7c9e6679-7425-40de-944b-e07fc1f09d45';
const T = Date.UTC(2025, 8, 1);

function propertiesOf(store: StagingStore): Array<[string, Record<string, unknown>]> {
  const rows = store.db.prepare(`SELECT distinct_id AS id, ${STAGED_PROPERTIES_TEXT} AS p FROM events ORDER BY seq`).all() as Array<{ id: string; p: string }>;
  return rows.map((r) => [r.id, JSON.parse(r.p) as Record<string, unknown>]);
}

describe('derived rows', () => {
  it.each([
    ['an identity link', linkEvent('u1', 'd1', T), { $anon_distinct_id: 'd1', $geoip_disable: true, $import_source: 'identity-links', $import_run: RUN }],
    [
      'a group update',
      groupUpdateEvent({ type: 'company', key: 'acme' }, Buffer.from('v1'), '{"plan":"pro"}', T),
      { $group_type: 'company', $group_key: 'acme', $group_set: { plan: 'pro' }, $geoip_disable: true, $import_source: 'group-updates', $import_run: RUN },
    ],
  ])('%s is staged with the stamp', (_name, event, expected) => {
    const store = StagingStore.open(join(tempDir(), 'migration.db'));
    try {
      expect(new DerivedRows(store, RUN).stage(event)).toBe(true);
      expect(propertiesOf(store)).toEqual([[event.distinctId, expected]]);
    } finally {
      store.close();
    }
  });

  it('stamps the rows an earlier version staged without it, once, and never a row a project received', () => {
    const store = StagingStore.open(join(tempDir(), 'migration.db'));
    try {
      const insert = store.db.prepare("INSERT INTO events (uuid, kind, event, distinct_id, timestamp_ms, properties, read_id, line) VALUES (?, 1, '$identify', ?, ?, jsonb(?), 0, 0)");
      insert.run(Buffer.alloc(16, 1), 'sent', T, '{"$anon_distinct_id":"d0"}');
      insert.run(Buffer.alloc(16, 2), 'unsent', T, '{"$anon_distinct_id":"d2"}');
      store.db.prepare("INSERT INTO projects (id, name, role, host, created_at) VALUES (1, 'test', 'test', 'http://127.0.0.1', '2025-09-01')").run();
      store.db.prepare('INSERT INTO deliveries (project_id, seq) SELECT 1, seq FROM events WHERE distinct_id = ?').run('sent');
      const derived = new DerivedRows(store, RUN);
      expect(derived.stampUnsentOlderRows()).toBe(1);
      expect(propertiesOf(store)).toEqual([
        ['sent', { $anon_distinct_id: 'd0' }],
        ['unsent', { $anon_distinct_id: 'd2', $geoip_disable: true, $import_source: 'identity-links', $import_run: RUN }],
      ]);
      insert.run(Buffer.alloc(16, 3), 'later', T, '{"$anon_distinct_id":"d3"}');
      expect(new DerivedRows(store, RUN).stampUnsentOlderRows()).toBe(0);
    } finally {
      store.close();
    }
  });
});
