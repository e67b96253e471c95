/**
 * The persons model of PostHog's batch exports: rows read (JSON lines and Parquet shapes), the
 * model told from events by its columns, and rows folded by version into users-file lines that
 * are the same whatever order the rows come in.
 */
import { describe, expect, it } from 'vitest';
import { isPersonsModel, PersonsState, readPersonRow, type PersonRow } from '../../src/sources/vendors/posthog-persons.js';

const P1 = '0190a000-0000-7000-8000-000000000001';
const P2 = '0190a000-0000-7000-8000-000000000002';

function row(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    team_id: 1,
    distinct_id: 'ana',
    person_id: P1,
    properties: { email: 'ana@example.com' },
    person_distinct_id_version: 0,
    person_version: 1,
    created_at: '2024-01-01T00:00:00+00:00',
    _inserted_at: '2024-01-02T00:00:00+00:00',
    is_deleted: false,
    ...overrides,
  };
}

function read(overrides: Record<string, unknown>): PersonRow {
  const r = readPersonRow(row(overrides));
  if ('reason' in r) throw new Error(r.message);
  return r;
}

function linesOf(rows: readonly Record<string, unknown>[]): Array<Record<string, unknown>> {
  const state = new PersonsState();
  for (const r of rows) state.add(read(r));
  return state.lines().lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('the persons model, told by its columns', () => {
  it.each([
    [['team_id', 'distinct_id', 'person_id', 'properties', 'person_distinct_id_version', 'person_version', 'created_at', '_inserted_at', 'is_deleted'], true],
    [['distinct_id', 'person_id', 'person_version', 'person_distinct_id_version'], true],
    [['uuid', 'timestamp', '_inserted_at', 'created_at', 'event', 'properties', 'distinct_id', 'elements_chain', 'person_properties', 'person_id'], false],
    [['distinct_id', 'person_id', 'person_version', 'person_distinct_id_version', 'event'], false],
    [[], false],
  ])('%j is the persons model: %s', (columns, expected) => {
    expect(isPersonsModel(columns)).toBe(expected);
  });
});

describe('a persons row', () => {
  it.each([
    ['JSON lines: properties an object', {}, { distinctId: 'ana', personId: P1, propertiesJson: '{"email":"ana@example.com"}', personVersion: 1n, distinctIdVersion: 0n, isDeleted: false }],
    ['Parquet: properties JSON text', { properties: '{"email":"ana@example.com","n":12345678901234567890}' }, { propertiesJson: '{"email":"ana@example.com","n":12345678901234567890}' }],
    ['a big integer property keeps its digits', { properties: { n: 9007199254740993n } }, { propertiesJson: '{"n":9007199254740993}' }],
    ['versions as BigInts or digits', { person_version: 12n, person_distinct_id_version: '7' }, { personVersion: 12n, distinctIdVersion: 7n }],
    ['null properties are none', { properties: null }, { propertiesJson: '{}' }],
    ['is_deleted as 1', { is_deleted: 1 }, { isDeleted: true }],
    ['created_at as JSON lines write it', { created_at: '2024-01-01T00:00:00+00:00' }, { createdAt: '2024-01-01T00:00:00Z' }],
    ['created_at as Parquet gives it', { created_at: '2024-01-01T00:00:00.000000Z' }, { createdAt: '2024-01-01T00:00:00Z' }],
    ['a fraction keeps its digits', { created_at: '2024-01-01T01:00:00.123400+01:00' }, { createdAt: '2024-01-01T00:00:00.1234Z' }],
  ])('%s', (_, overrides, expected) => {
    expect(readPersonRow(row(overrides))).toMatchObject(expected);
  });

  it.each([
    ['no distinct_id', { distinct_id: null }, 'missing_distinct_id', 'distinct_id'],
    ['no person_id', { person_id: '' }, 'bad_value', 'person_id'],
    ['properties not an object', { properties: '[1]' }, 'bad_properties', 'properties'],
    ['a version that is not an integer', { person_version: 1.5 }, 'bad_value', 'person_version'],
    ['is_deleted neither true nor false', { is_deleted: 'maybe' }, 'bad_value', 'is_deleted'],
  ])('%s is refused', (_, overrides, reason, field) => {
    expect(readPersonRow(row(overrides))).toMatchObject({ reason, field });
  });
});

describe('persons folded by version', () => {
  it('a person with three distinct ids: its properties set on the lowest, the others linked to it, in any order', () => {
    const rows = [row({ distinct_id: 'zed' }), row({ distinct_id: 'ana' }), row({ distinct_id: 'bob' })];
    const expected = [
      { $migrate_distinct_id: 'ana', $migrate_timestamp: '2024-01-01T00:00:00Z', $set: { email: 'ana@example.com' } },
      { $migrate_distinct_id: 'ana', $migrate_timestamp: '2024-01-01T00:00:00Z', $migrate_anon_distinct_id: 'bob', $set: {} },
      { $migrate_distinct_id: 'ana', $migrate_timestamp: '2024-01-01T00:00:00Z', $migrate_anon_distinct_id: 'zed', $set: {} },
    ];
    for (const order of permutations(rows)) expect(linesOf(order)).toEqual(expected);
  });

  it('the highest person_version wins, whichever file or run comes first', () => {
    const rows = [row({ person_version: 1, properties: { plan: 'free' } }), row({ person_version: 3, properties: { plan: 'team' } }), row({ person_version: 2, properties: { plan: 'pro' } })];
    for (const order of permutations(rows)) expect(linesOf(order)).toEqual([expect.objectContaining({ $set: { plan: 'team' } })]);
  });

  it('a deleted person is not staged; a later version that is not deleted is', () => {
    const deleted = [row({ person_version: 1 }), row({ person_version: 2, is_deleted: true })];
    for (const order of permutations(deleted)) {
      const state = new PersonsState();
      for (const r of order) state.add(read(r));
      expect(state.lines()).toEqual({ lines: [], totals: { persons: 0, distinctIds: 0, deleted: 1, deletedDistinctIds: 1 } });
    }
    const back = [...deleted, row({ person_version: 3, properties: { back: true } })];
    for (const order of permutations(back)) expect(linesOf(order)).toEqual([expect.objectContaining({ $set: { back: true } })]);
  });

  it('a distinct id mapped again with a higher person_distinct_id_version belongs to the later person; a person left with none is merged away', () => {
    const rows = [
      row({ distinct_id: 'anon-1', person_id: P2, person_distinct_id_version: 0, properties: { anon: true } }),
      row({ distinct_id: 'user-1', person_id: P1, person_distinct_id_version: 0 }),
      row({ distinct_id: 'anon-1', person_id: P1, person_distinct_id_version: 1 }),
    ];
    for (const order of permutations(rows)) {
      expect(linesOf(order)).toEqual([
        expect.objectContaining({ $migrate_distinct_id: 'anon-1', $set: { email: 'ana@example.com' } }),
        expect.objectContaining({ $migrate_distinct_id: 'anon-1', $migrate_anon_distinct_id: 'user-1' }),
      ]);
    }
  });

  it('a state saved and restored, then given more rows, folds as one state given them all', () => {
    const rows = [row({ person_version: 1 }), row({ distinct_id: 'bob', person_version: 1 }), row({ person_version: 2, properties: { plan: 'team' } }), row({ distinct_id: 'cy', person_id: P2 })];
    const all = new PersonsState();
    for (const r of rows) all.add(read(r));
    const first = new PersonsState();
    for (const r of rows.slice(0, 2)) first.add(read(r));
    const later = PersonsState.restore(first.saved());
    for (const r of rows.slice(2)) later.add(read(r));
    expect(later.lines()).toEqual(all.lines());
  });

  it('an id PostHog will not merge on is never the one the others are linked to', () => {
    expect(linesOf([row({ distinct_id: 'anonymous' }), row({ distinct_id: 'zoe' })]).map((l) => [l.$migrate_distinct_id, l.$migrate_anon_distinct_id])).toEqual([
      ['zoe', undefined],
      ['zoe', 'anonymous'],
    ]);
  });
});
