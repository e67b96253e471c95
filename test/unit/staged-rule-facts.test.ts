/**
 * The staging file's counts for PostHog's ingestion rules, on a real staging file: added for
 * rows staged (not again for rows already staged), taken off for rows withdrawn or undone; the
 * re-assertions import stages from them; and the refusals import makes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEvent, type CandidateEvent } from '../../src/events/build-event.js';
import { buildNameMap } from '../../src/events/name-map.js';
import { EventKind, type EventKindValue } from '../../src/events/staged-event.js';
import { groupTypesProblem, refuseRecentEvents, refuseTooManyGroupTypes } from '../../src/import/ingestion-checks.js';
import { bindProject, DeliveryCheckpoint, PendingEvents } from '../../src/staging/delivery-store.js';
import { EventBatchBuilder } from '../../src/staging/event-batch.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { startRun } from '../../src/staging/import-runs.js';
import { stageReassertions } from '../../src/staging/reassertions.js';
import { groupTypeUses, illegalIds, propertyConflicts, ruleReport } from '../../src/staging/rule-report.js';
import { abandonRead, beginRead, finishRead } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { selectRow, withdrawSelected } from '../../src/staging/withdrawals.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { STAGED_PROPERTIES_TEXT, STAGED_PROPERTIES } from '../helpers/staged-properties.js';

const tempDir = useTempDir();
const NOW = Date.parse('2026-01-10T00:00:00Z');
const done = { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 };

interface Row {
  event?: string;
  distinctId?: string;
  timestamp?: string;
  properties?: Record<string, unknown>;
  kind?: EventKindValue;
}

/** Stages rows through every staging rule, as a read of `path`; returns the read. */
function stage(store: StagingStore, rows: Row[], path = '/data/events.jsonl'): number {
  const readId = beginRead(store, { path, format: 'jsonl', command: 'export-source', sizeBytes: 1, options: { geoip: true } });
  const builder = new EventBatchBuilder();
  rows.forEach((row, i) => {
    const candidate: CandidateEvent = {
      event: row.event ?? 'viewed',
      distinctId: row.distinctId ?? 'u1',
      timestamp: row.timestamp ?? `2025-06-01T00:00:${String(i).padStart(2, '0')}Z`,
      uuid: undefined,
      properties: structuredClone(row.properties ?? {}),
      identity: JSON.stringify(row),
      kind: row.kind,
    };
    const outcome = buildEvent(candidate, { nameMap: buildNameMap(), nowMs: NOW, ingestion: { geoipFromIp: true, importSource: 'jsonl', importRun: 'run-1' } });
    if (outcome.type !== 'event') throw new Error(`row ${i} was not staged: ${JSON.stringify(outcome)}`);
    builder.add(i + 1, outcome.event, undefined, outcome.facts);
  });
  new EventWriter(store).writeBatch(readId, builder.finish(), []);
  finishRead(store, readId, done, undefined);
  return readId;
}

function open(): StagingStore {
  return StagingStore.open(join(tempDir(), 's.db'));
}

describe('rule facts kept as rows are staged', () => {
  it('counts property types, group types, illegal ids and $set_once nulls once per staged row', () => {
    const store = open();
    const rows: Row[] = [
      { properties: { price: 3, $groups: { company: 'acme' }, $set_once: { a: null } } },
      { properties: { price: '3', $groups: { company: 'beta', team: 't1' } } },
      { distinctId: 'null', properties: { price: 4 } },
      { distinctId: 'null', properties: {} },
      { event: '$groupidentify', distinctId: '$project_p', kind: EventKind.group, properties: { $group_type: 'project', $group_key: 'p', $group_set: {} } },
    ];
    stage(store, rows);
    stage(store, rows); // the same rows again: already staged, not counted twice
    expect(propertyConflicts(store)).toEqual([
      {
        name: 'price',
        types: [
          { type: 'number', count: 2, path: '/data/events.jsonl', line: 1 },
          { type: 'string', count: 1, path: '/data/events.jsonl', line: 2 },
        ],
      },
    ]);
    expect(groupTypeUses(store).map((g) => [g.type, g.count, g.line])).toEqual([
      ['company', 2, 1],
      ['team', 1, 2],
      ['project', 1, 5],
    ]);
    expect(illegalIds(store)).toEqual({ events: 2, ids: [{ distinctId: 'null', events: 2, path: '/data/events.jsonl', line: 3 }] });
    expect(ruleReport(store).setOnceNullsDropped).toBe(1);
    store.close();
  });

  it('takes the facts of withdrawn rows and undone reads off the counts', () => {
    const store = open();
    stage(store, [{ properties: { price: 3, $groups: { company: 'acme' } } }, { distinctId: 'guest', properties: { price: '3', $groups: { team: 't' } } }]);
    selectRow(store, 2);
    withdrawSelected(store, 1, 'gone');
    expect(propertyConflicts(store)).toEqual([]);
    expect(groupTypeUses(store).map((g) => g.type)).toEqual(['company']);
    expect(illegalIds(store).events).toBe(0);

    const undone = stage(store, [{ properties: { price: false, $groups: { other: 'x' } } }], '/data/b.jsonl');
    expect(propertyConflicts(store).map((c) => c.name)).toEqual(['price']);
    abandonRead(store, undone, 'failed');
    expect(propertyConflicts(store)).toEqual([]);
    expect(groupTypeUses(store).map((g) => g.type)).toEqual(['company']);
    store.close();
  });
});

describe('import refusals', () => {
  it('refuses more than 5 group types, naming each with its first line', () => {
    const store = open();
    stage(store, [{ properties: { $groups: { a: '1', b: '1', c: '1', d: '1', e: '1' } } }]);
    expect(() => refuseTooManyGroupTypes(store)).not.toThrow();
    stage(store, [{ properties: { $groups: { f: '1' } } }], '/data/more.jsonl');
    expect(() => refuseTooManyGroupTypes(store)).toThrow(
      /uses 6 group types, and PostHog takes at most 5 per project .*: a \(1 row, first at \/data\/events.jsonl:1\), .* f \(1 row, first at \/data\/more.jsonl:1\)/,
    );
    expect(groupTypesProblem([])).toBeUndefined();
    store.close();
  });

  it('refuses events of the last 48 hours unless --include-recent, naming the count and the newest', () => {
    const store = open();
    stage(store, [{ timestamp: '2026-01-09T10:00:00Z' }, { timestamp: '2026-01-08T12:00:00Z' }, { timestamp: '2025-01-01T00:00:00Z' }]);
    const project = bindProject(store, { name: 'test', role: 'test', host: 'http://127.0.0.1:1' });
    const refusal = (): unknown => refuseRecentEvents(store, project.id, NOW, false);
    expect(refusal).toThrow('2 staged events are from the last 48 hours (the newest at 2026-01-09T10:00:00.000Z)');
    expect(() => refuseRecentEvents(store, project.id, NOW, true)).not.toThrow();
    const run = startRun(store, { projectId: project.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
    new DeliveryCheckpoint(store, project.id, run.id).delivered([1, 2]);
    expect(refusal).not.toThrow();
    store.close();
  });
});

describe('re-assertions', () => {
  it("stages the users file's $set once per person whose events (or linked ids' events) carry their own $set, sent last", () => {
    const store = open();
    stage(store, [
      { distinctId: 'u1', properties: { $set: { plan: 'free' } } },
      { distinctId: 'anon-2', properties: { $set: { plan: 'old' } } },
      { distinctId: 'u3', properties: {} },
    ]);
    stage(
      store,
      [
        { event: '$identify', distinctId: 'u1', kind: EventKind.person, properties: { $set: { plan: 'pro' } } },
        { event: '$identify', distinctId: 'u2', kind: EventKind.person, properties: { $set: { plan: 'team' }, $anon_distinct_id: 'anon-2' } },
        { event: '$identify', distinctId: 'u3', kind: EventKind.person, properties: { $set: { plan: 'free' } } },
      ],
      '/data/users.csv',
    );
    expect(stageReassertions(store)).toEqual({ total: 2, added: 2, removed: 0 });
    expect(stageReassertions(store)).toEqual({ total: 2, added: 0, removed: 0 });
    const rows = store.db.prepare(`SELECT kind, event, distinct_id AS id, ${STAGED_PROPERTIES_TEXT} AS p FROM events WHERE kind = 3 ORDER BY distinct_id`).all() as Array<{
      id: string;
      p: string;
      event: string;
    }>;
    expect(rows.map((r) => [r.event, r.id, JSON.parse(r.p)])).toEqual([
      ['$set', 'u1', { $set: { plan: 'pro' }, $geoip_disable: true, $import_source: 'jsonl', $import_run: 'run-1' }],
      ['$set', 'u2', { $set: { plan: 'team' }, $geoip_disable: true, $import_source: 'jsonl', $import_run: 'run-1' }],
    ]);
    const project = bindProject(store, { name: 'test', role: 'test', host: 'http://127.0.0.1:1' });
    const kinds = new PendingEvents(store, project.id).page(undefined, 100).map((e) => e.kind);
    expect(kinds).toEqual([1, 1, 1, 0, 0, 0, 3, 3]);
    expect(ruleReport(store).reassertions).toEqual({ staged: 2, personsWithEventSets: 2 });

    // The users file corrected: u1's old update withdrawn, a new one staged; the old re-assertion goes too.
    const oldUpdate = (store.db.prepare("SELECT seq FROM events WHERE kind = 1 AND distinct_id = 'u1'").get() as { seq: number }).seq;
    selectRow(store, oldUpdate);
    withdrawSelected(store, 2, 'gone');
    stage(store, [{ event: '$identify', distinctId: 'u1', kind: EventKind.person, properties: { $set: { plan: 'enterprise' } } }], '/data/users-2.csv');
    expect(stageReassertions(store)).toEqual({ total: 2, added: 1, removed: 1 });
    const sets = store.db.prepare(`SELECT json_extract(${STAGED_PROPERTIES}, '$."$set".plan') AS plan FROM events WHERE kind = 3 ORDER BY distinct_id`).pluck().all();
    expect(sets).toEqual(['enterprise', 'team']);
    store.close();
  });
});
