/** The sandbox's HogQL subset: query text to rows over a real (in-memory) sandbox store, and refusals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETURNED_ROWS, MAX_SELECT_RETURNED_ROWS, rowWindow } from '../../src/sandbox/api/query/hogql-compile.js';
import { formatDateTime, parseDateTimeLiteral } from '../../src/sandbox/api/query/hogql-literals.js';
import { runHogQL } from '../../src/sandbox/api/query/query-runner.js';
import { SandboxStore } from '../../src/sandbox/sandbox-store.js';
import { storedTime } from '../../src/sandbox/stored-time.js';
import { join } from 'node:path';
import { SANDBOX_MIGRATIONS } from '../../src/sandbox/sandbox-schema.js';
import { useTempDir } from '../helpers/temp-dir.js';

const U1 = '00000000-0000-4000-8000-000000000001';
const U2 = '00000000-0000-4000-8000-000000000002';
const U3 = '00000000-0000-4000-8000-000000000003';
const U4 = 'ABCDEF00-0000-4000-8000-000000000004';

/** Team 1 holds five rows, one of them a second copy of U1 (as the sandbox keeps every copy); team 2 one. */
const EVENTS: Array<[number, string, string, string, string, Record<string, unknown>]> = [
  [1, U1, '$pageview', 'alice', '2024-01-01T10:00:00.000Z', { $browser: 'Chrome', plan: 'pro', n: 5 }],
  [1, U1, '$pageview', 'alice', '2024-01-01T10:00:00.000Z', { $browser: 'Chrome', plan: 'pro', n: 5 }],
  [1, U2, '$pageview', 'bob', '2024-01-01T23:59:59.999Z', { $browser: 'Firefox', 'plan name': 'team' }],
  [1, U3, 'signed_up', 'bob', '2024-01-02T00:00:00.000Z', { plan: 'free', nested: { a: { b: 'deep' } }, q: 'say "hi"' }],
  [1, U4, 'signed_up', 'carol', '2024-01-03T12:30:00.250Z', { plan: null, flag: true }],
  [2, '00000000-0000-4000-8000-000000000005', '$pageview', 'dave', '2024-01-01T00:00:00.000Z', {}],
];

let store: SandboxStore;

function insert(target: SandboxStore, rows: typeof EVENTS): void {
  const statement = target.db.prepare(
    `INSERT INTO events (team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint, received_at)
     VALUES (?, ?, ?, ?, ?, ?, 1, '/batch/', ?)`,
  );
  target.transaction(() => rows.forEach(([team, uuid, event, distinctId, ts, props]) => statement.run(team, uuid, event, distinctId, storedTime(ts), JSON.stringify(props), ts)));
}

beforeAll(() => {
  store = SandboxStore.open(':memory:');
  insert(store, EVENTS);
});
afterAll(() => store.close());

function rows(text: string, teamId = 1): unknown[][] {
  const outcome = runHogQL(store, teamId, text);
  if (!outcome.ok) throw new Error(outcome.detail);
  return outcome.answer.results;
}

describe('supported queries', () => {
  it.each<[string, unknown[][]]>([
    ['SELECT count() FROM events', [[5]]],
    ['SELECT count(*), count(DISTINCT uuid), uniqExact(uuid) FROM events', [[5, 4, 4]]],
    ['select COUNT() from events', [[5]]],
    [
      'SELECT event, count() FROM events GROUP BY event ORDER BY event',
      [
        ['$pageview', 3],
        ['signed_up', 2],
      ],
    ],
    [
      'SELECT event, count(DISTINCT uuid) AS n FROM events GROUP BY event ORDER BY n DESC, event',
      [
        ['$pageview', 2],
        ['signed_up', 2],
      ],
    ],
    [
      'SELECT toDate(timestamp) AS day, count() FROM events GROUP BY day ORDER BY day',
      [
        ['2024-01-01', 3],
        ['2024-01-02', 1],
        ['2024-01-03', 1],
      ],
    ],
    [
      'SELECT toDate(timestamp), count() FROM events GROUP BY toDate(timestamp) ORDER BY toDate(timestamp) DESC',
      [
        ['2024-01-03', 1],
        ['2024-01-02', 1],
        ['2024-01-01', 3],
      ],
    ],
    ["SELECT count() FROM events WHERE timestamp >= '2024-01-02'", [[2]]],
    ["SELECT count() FROM events WHERE timestamp < toDateTime('2024-01-02 00:00:00')", [[3]]],
    ["SELECT count() FROM events WHERE timestamp > toDateTime('2024-01-01T23:59:59.998Z') AND timestamp <= '2024-01-02T00:00:00Z'", [[2]]],
    ["SELECT count() FROM events WHERE toDate(timestamp) = '2024-01-01'", [[3]]],
    ["SELECT count() FROM events WHERE toDate(timestamp) >= toDate('2024-01-02')", [[2]]],
    ["SELECT count() FROM events WHERE timestamp >= toDate('2024-01-02')", [[2]]],
    ["SELECT count() FROM events WHERE event IN ('signed_up') AND distinct_id != 'carol'", [[1]]],
    ["SELECT count() FROM events WHERE (event = '$pageview' OR event == 'signed_up') AND NOT distinct_id = 'alice'", [[3]]],
    ["SELECT count() FROM events WHERE event <> '$pageview'", [[2]]],
    ["SELECT count() FROM events WHERE properties.$browser = 'Chrome'", [[2]]],
    ["SELECT count() FROM events WHERE properties['$browser'] = 'Chrome'", [[2]]],
    ["SELECT distinct_id FROM events WHERE properties['plan name'] = 'team'", [['bob']]],
    ["SELECT distinct_id FROM events WHERE properties.`plan name` = 'team'", [['bob']]],
    ["SELECT properties.nested.a.b, properties.q FROM events WHERE event = 'signed_up' AND distinct_id = 'bob'", [['deep', 'say \\"hi\\"']]],
    ["SELECT properties.plan, properties.flag, properties.n, properties.missing FROM events WHERE distinct_id = 'carol'", [[null, 'true', null, null]]],
    ['SELECT properties.n FROM events LIMIT 1', [['5']]],
    ["SELECT count() FROM events WHERE properties.n = '5'", [[2]]],
    ["SELECT count() FROM events WHERE properties.plan NOT IN ('pro')", [[3]]],
    ["SELECT count() FROM events WHERE properties.plan IN ('pro', 'free')", [[3]]],
    ["SELECT count() FROM events WHERE properties.plan != 'pro'", [[1]]],
    ["SELECT uuid FROM events WHERE uuid = 'abcdef00-0000-4000-8000-000000000004'", [['abcdef00-0000-4000-8000-000000000004']]],
    ["SELECT count() FROM events WHERE uuid IN ('00000000-0000-4000-8000-000000000001', 'ABCDEF00-0000-4000-8000-000000000004')", [[3]]],
    ['SELECT timestamp FROM events ORDER BY timestamp DESC LIMIT 2', [['2024-01-03T12:30:00.250000Z'], ['2024-01-02T00:00:00Z']]],
    ['SELECT min(timestamp), max(timestamp) FROM events', [['2024-01-01T10:00:00Z', '2024-01-03T12:30:00.250000Z']]],
    ["SELECT min(timestamp), max(event), count() FROM events WHERE event = 'nothing'", [['1970-01-01T00:00:00Z', '', 0]]],
    ['SELECT DISTINCT event FROM events ORDER BY event', [['$pageview'], ['signed_up']]],
    ['SELECT distinct_id FROM events ORDER BY timestamp LIMIT 2 OFFSET 2', [['bob'], ['bob']]],
    ['SELECT distinct_id FROM events ORDER BY timestamp LIMIT 3, 1', [['bob']]],
    ["SELECT e.event FROM events AS e WHERE e.distinct_id = 'carol'", [['signed_up']]],
    ["SELECT events.event FROM events WHERE events.distinct_id = 'carol'", [['signed_up']]],
    ['SELECT "event", `distinct_id` FROM events WHERE distinct_id = \'carol\' -- a comment', [['signed_up', 'carol']]],
    ["SELECT 'x' AS label, 7 FROM events LIMIT 1", [['x', 7]]],
    ['SELECT count() FROM events LIMIT 0', []],
  ])('%s', (text, expected) => expect(rows(text)).toEqual(expected));

  it('reads one project only', () => {
    expect(rows('SELECT count(), min(distinct_id) FROM events', 2)).toEqual([[1, 'dave']]);
    expect(rows('SELECT count() FROM events', 3)).toEqual([[0]]);
  });

  it('names and types the columns as PostHog reports them, and prints the query back', () => {
    const outcome = runHogQL(
      store,
      1,
      "SELECT count(), toDate(timestamp) AS day, properties.$browser, uuid, timestamp, event FROM events WHERE event = 'x' GROUP BY day, properties.$browser, uuid, timestamp, event",
    );
    if (!outcome.ok) throw new Error(outcome.detail);
    const { columns, types, hogql } = outcome.answer.query;
    expect(columns).toEqual(['count()', 'day', 'properties.$browser', 'uuid', 'timestamp', 'event']);
    expect(types.map(([, type]) => type)).toEqual(['UInt64', 'Date', 'Nullable(String)', 'UUID', "DateTime64(6, 'UTC')", 'String']);
    expect(hogql).toBe(
      "SELECT count(), toDate(timestamp) AS day, properties.$browser, uuid, timestamp, event FROM events WHERE event = 'x' GROUP BY toDate(timestamp), properties.$browser, uuid, timestamp, event LIMIT 100",
    );
  });
});

describe('row caps', () => {
  it.each<[number | undefined, number | undefined, ReturnType<typeof rowWindow>]>([
    [undefined, undefined, { fetch: 101, skip: 0, paginated: true, limit: 100 }],
    [undefined, 20, { fetch: 101, skip: 0, paginated: true, limit: 100 }],
    [10, undefined, { fetch: 10, skip: 0, paginated: false, limit: 10 }],
    [10, 5, { fetch: 10, skip: 5, paginated: false, limit: 10 }],
    [60_000, 0, { fetch: 50_000, skip: 0, paginated: false, limit: 50_000 }],
  ])('LIMIT %s OFFSET %s', (limit, offset, expected) => expect(rowWindow(limit, offset)).toEqual(expected));

  it('answers 100 rows and hasMore without LIMIT; a LIMIT is obeyed up to 50,000, without hasMore', () => {
    expect([DEFAULT_RETURNED_ROWS, MAX_SELECT_RETURNED_ROWS]).toEqual([100, 50_000]);
    const big = SandboxStore.open(':memory:');
    insert(
      big,
      Array.from({ length: 150 }, (_, i) => [1, U1, 'e', `user-${String(i).padStart(3, '0')}`, '2024-01-01T00:00:00.000Z', {}] as (typeof EVENTS)[number]),
    );
    const run = (text: string) => {
      const outcome = runHogQL(big, 1, text);
      if (!outcome.ok) throw new Error(outcome.detail);
      return { count: outcome.answer.results.length, hasMore: outcome.answer.hasMore, first: outcome.answer.results[0]![0] };
    };
    expect(run('SELECT distinct_id FROM events')).toEqual({ count: 100, hasMore: true, first: 'user-000' });
    expect(run('SELECT distinct_id FROM events OFFSET 120')).toEqual({ count: 100, hasMore: true, first: 'user-000' });
    expect(run('SELECT distinct_id FROM events LIMIT 150')).toEqual({ count: 150, hasMore: null, first: 'user-000' });
    expect(run('SELECT distinct_id FROM events LIMIT 100 OFFSET 100')).toEqual({ count: 50, hasMore: null, first: 'user-100' });
    expect(run("SELECT distinct_id FROM events WHERE distinct_id >= 'user-060'")).toEqual({ count: 90, hasMore: false, first: 'user-060' });
    big.close();
  });
});

describe('refused queries name what is wrong or unsupported', () => {
  it.each<[string, string]>([
    ['SELECT * FROM events', "SELECT * is not supported by the sandbox's HogQL subset (see docs/sandbox-api.md)."],
    ['SELECT count() FROM sessions', 'The table sessions is not supported'],
    ['SELECT count() FROM foo', 'Unknown table `foo`. The sandbox answers queries FROM events, persons, person_distinct_ids, raw_persons, raw_person_distinct_ids, groups.'],
    ['SELECT 1', 'A query without FROM events is not supported'],
    ['SELECT avg(1) FROM events', 'The function avg() is not supported'],
    ['SELECT uniq(uuid) FROM events', 'The function uniq() is not supported'],
    ['SELECT count(DISTINCT uuid, event) FROM events', "Function 'count' expects 1 argument, found 2."],
    ['SELECT min(DISTINCT event) FROM events', 'DISTINCT inside min() is not supported'],
    ['SELECT count(count()) FROM events', 'Aggregate function count() is found inside another aggregate function in query.'],
    ['SELECT event FROM events e JOIN persons p ON 1', 'JOIN is not supported'],
    ['SELECT count() FROM events UNION ALL SELECT 1', 'UNION is not supported'],
    ['SELECT event FROM (SELECT event FROM events)', 'A subquery other than SELECT count() FROM (SELECT ...) is not supported'],
    ['SELECT event FROM events WHERE event IN (SELECT event FROM events)', 'A subquery is not supported'],
    ['WITH x AS (SELECT 1) SELECT 1', 'WITH is not supported'],
    ['SELECT event, count() FROM events', 'Column `event` is not under aggregate function and not in GROUP BY keys.'],
    ['SELECT distinct_id, count() FROM events GROUP BY event', 'Column `distinct_id` is not under aggregate function and not in GROUP BY keys.'],
    ['SELECT count() FROM events GROUP BY event ORDER BY timestamp', 'Column `timestamp` is not under aggregate function'],
    ['SELECT count() FROM events WHERE count() > 1', 'Aggregate function count() is found in WHERE in query.'],
    ['SELECT count() FROM events GROUP BY count()', 'Aggregate function count() is found in GROUP BY in query.'],
    ['SELECT event FROM events HAVING count() > 1', 'Column `event` is not under aggregate function'],
    ["SELECT event FROM events WHERE event LIKE '%x'", 'LIKE is not supported'],
    ['SELECT event FROM events WHERE properties.plan IS NULL', 'IS [NOT] NULL is not supported'],
    [
      'SELECT event FROM events WHERE properties.n = 5',
      "Comparing the string properties.n with the number 5 is not supported by the sandbox's HogQL subset: properties are strings here, so quote the number ('5')",
    ],
    ["SELECT event FROM events WHERE timestamp > 'yesterday'", "Cannot parse 'yesterday' as a date and time"],
    ["SELECT event FROM events WHERE timestamp > '2024-02-30'", "Cannot parse '2024-02-30' as a date and time"],
    ["SELECT event FROM events WHERE uuid = 'nope'", "Cannot parse 'nope' as a UUID."],
    ["SELECT count() FROM events WHERE toDate(timestamp) = toDateTime('2024-01-01')", "Comparing toDate(timestamp) (Date) with toDateTime('2024-01-01') is not supported"],
    ['SELECT count() FROM events WHERE event = distinct_id AND timestamp = event', "Comparing timestamp (DateTime64(6, 'UTC')) with event (String) is not supported"],
    ["SELECT count() FROM events WHERE 'a' = 'a'", 'Comparing two constants is not supported'],
    ['SELECT event FROM events WHERE event', 'Using event as a condition is not supported'],
    ['SELECT event + 1 FROM events', 'Arithmetic (+) is not supported'],
    ['SELECT event FROM events ORDER BY 1', 'ORDER BY a column number is not supported'],
    ['SELECT event FROM events LIMIT 5 BY event', 'LIMIT BY is not supported'],
    ['SELECT person_id FROM events', 'The field person_id is not supported'],
    ['SELECT foo FROM events', 'Field not found: foo'],
    ['SELECT events.foo.bar FROM events', 'Field not found: foo.bar'],
    ['SELECT event FROM events WHERE event = {name}', 'A placeholder is not supported'],
    ['SELECT toDate(event) FROM events', 'toDate() of event is not supported'],
    ["SELECT event FROM events WHERE event = 'unterminated", 'Syntax error at line 1, column 40: unterminated string'],
    ['SELECT count( FROM events', 'Syntax error at line 1, column 15: expected a column, a function call or a literal, found FROM'],
    ['SELECT event\nFROM events\nWHERE event = = 1', 'Syntax error at line 3, column 15: expected a column, a function call or a literal, found ='],
    ['SELECT event FROM events LIMIT -1', 'Syntax error at line 1, column 32: expected a whole number after LIMIT, found -'],
    ['SELECT event FROM events; DROP TABLE events', 'Syntax error at line 1, column 25: expected end of query, found ;'],
    ['SELECT event FROM events WHERE event = #', 'Syntax error at line 1, column 40: unexpected character "#"'],
  ])('%s', (text, detail) => {
    const outcome = runHogQL(store, 1, text);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.detail).toContain(detail);
  });

  it('never splices query text into SQL: a quote in a literal is only a value', () => {
    expect(rows("SELECT count() FROM events WHERE event = 'x'' OR 1=1 --'")).toEqual([[0]]);
    expect(rows("SELECT count() FROM events WHERE properties['a]'' OR 1=1 --'] = 'x'")).toEqual([[0]]);
    expect(runHogQL(store, 1, "SELECT properties['a\"b'] FROM events")).toMatchObject({ ok: false, detail: expect.stringContaining('A property name containing a double quote') });
  });
});

describe('time values', () => {
  it.each([
    ['2024-01-01', '2024-01-01T00:00:00.000000Z'],
    ['2024-01-01 10:30', '2024-01-01T10:30:00.000000Z'],
    ['2024-01-01 10:30:05', '2024-01-01T10:30:05.000000Z'],
    ['2024-01-01T10:30:05.5+02:00', '2024-01-01T08:30:05.500000Z'],
    ['2024-01-01T10:30:05.123456Z', '2024-01-01T10:30:05.123456Z'],
    ['2024-01-01 10:30:05.1234567', '2024-01-01T10:30:05.123456Z'],
  ])('reads %s as %s (UTC unless a zone is given)', (text, iso) => expect(parseDateTimeLiteral(text)).toBe(iso));

  it.each([
    ['2024-01-01T10:00:00.000Z', '2024-01-01T10:00:00Z'],
    ['2024-01-01T10:00:00.250Z', '2024-01-01T10:00:00.250000Z'],
    [null, null],
  ])('writes %s as PostHog does: %s', (stored, written) => expect(formatDateTime(stored)).toBe(written));
});

describe('microseconds (DateTime64(6))', () => {
  const US_EVENTS: typeof EVENTS = [
    [1, '00000000-0000-4000-8000-000000000011', 'a', 'u', '2024-01-01T10:00:00.123456Z', {}],
    [1, '00000000-0000-4000-8000-000000000012', 'a', 'u', '2024-01-01T10:00:00.123457Z', {}],
    [1, '00000000-0000-4000-8000-000000000013', 'a', 'u', '2024-01-01T10:00:00.123Z', {}],
  ];
  let us: SandboxStore;
  beforeAll(() => {
    us = SandboxStore.open(':memory:');
    insert(us, US_EVENTS);
  });
  afterAll(() => us.close());
  const answer = (text: string): unknown[][] => {
    const outcome = runHogQL(us, 1, text);
    if (!outcome.ok) throw new Error(outcome.detail);
    return outcome.answer.results;
  };

  it('writes an answer as PostHog does: microseconds when not 0, in the project zone', () => {
    expect(formatDateTime('2024-01-01T10:00:00.123456Z', 'America/New_York')).toBe('2024-01-01T05:00:00.123456-05:00');
    expect(formatDateTime('2024-01-01T10:00:00.000000Z')).toBe('2024-01-01T10:00:00Z');
  });

  it('answers every digit, in time order', () => {
    expect(answer('SELECT timestamp FROM events ORDER BY timestamp')).toEqual([['2024-01-01T10:00:00.123000Z'], ['2024-01-01T10:00:00.123456Z'], ['2024-01-01T10:00:00.123457Z']]);
  });

  it('compares to the microsecond, as a (timestamp, uuid) cursor does', () => {
    expect(answer("SELECT uuid FROM events WHERE timestamp > toDateTime('2024-01-01T10:00:00.123456Z') ORDER BY timestamp")).toEqual([['00000000-0000-4000-8000-000000000012']]);
    expect(answer("SELECT count() FROM events WHERE timestamp = toDateTime('2024-01-01T10:00:00.123456Z')")).toEqual([[1]]);
    expect(answer("SELECT count() FROM events WHERE timestamp >= '2024-01-01 10:00:00.123'")).toEqual([[3]]);
    expect(answer("SELECT max(timestamp) FROM events WHERE toDate(timestamp) = '2024-01-01'")).toEqual([['2024-01-01T10:00:00.123457Z']]);
  });
});

describe('a store written by an older sandbox (times with three fraction digits)', () => {
  const tempDir = useTempDir();

  it('is rewritten to six digits when opened, so its times compare with new ones', () => {
    const file = join(tempDir(), 'sandbox.db');
    const old = SandboxStore.open(file);
    old.db
      .prepare(
        `INSERT INTO events (team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint, received_at)
         VALUES (1, '00000000-0000-4000-8000-000000000021', 'a', 'u', '2024-01-01T10:00:00.123Z', '{}', 1, '/batch/', '2024-01-01T10:00:00.123Z')`,
      )
      .run();
    old.db.pragma(`user_version = ${SANDBOX_MIGRATIONS.length - 1}`);
    old.close();
    const reopened = SandboxStore.open(file);
    try {
      expect(reopened.db.prepare('SELECT timestamp FROM events').pluck().all()).toEqual(['2024-01-01T10:00:00.123000Z']);
      const outcome = runHogQL(reopened, 1, "SELECT count() FROM events WHERE timestamp > toDateTime('2024-01-01T10:00:00.1229Z')");
      expect(outcome.ok && outcome.answer.results).toEqual([[1]]);
    } finally {
      reopened.close();
    }
  });
});

describe('the person tables, raw and aggregated', () => {
  const people = () => {
    const db = SandboxStore.open(':memory:');
    db.db.exec(`INSERT INTO persons (id, team_id, properties, created_at) VALUES (1, 1, '{"n":1}', '2024-01-01 00:00:00'), (2, 1, '{"n":2}', '2024-01-02 00:00:00');
      INSERT INTO person_distinct_ids (team_id, distinct_id, person_id) VALUES (1, 'a', 1), (1, 'b', 1), (1, 'c', 2), (1, 'd', 2);`);
    return db;
  };

  it('reads the raw tables with argMax, HAVING and a counted subquery', () => {
    const db = people();
    const run = (text: string) => {
      const outcome = runHogQL(db, 1, text);
      if (!outcome.ok) throw new Error(outcome.detail);
      return outcome.answer.results;
    };
    const live = 'HAVING argMax(is_deleted, version) = 0';
    expect(
      run(`SELECT distinct_id, argMax(person_id, version) FROM raw_person_distinct_ids WHERE distinct_id >= 'b' AND distinct_id < 'd' GROUP BY distinct_id ${live} ORDER BY distinct_id ASC LIMIT 10`),
    ).toEqual([
      ['b', '00000000-0000-4000-8000-000000000001'],
      ['c', '00000000-0000-4000-8000-000000000002'],
    ]);
    expect(run(`SELECT count() FROM (SELECT distinct_id FROM raw_person_distinct_ids WHERE distinct_id >= 'b' GROUP BY distinct_id ${live})`)).toEqual([[3]]);
    expect(run(`SELECT id, argMax(properties, version) FROM raw_persons WHERE id IN ('00000000-0000-4000-8000-000000000002') GROUP BY id ${live} LIMIT 5`)).toEqual([
      ['00000000-0000-4000-8000-000000000002', '{"n":2}'],
    ]);
    db.close();
  });

  it('charges a query over persons or person_distinct_ids the whole table, over a raw table the rows its WHERE keeps', () => {
    const db = people();
    const slow = (text: string) => runHogQL(db, 1, text, { maxEstimatedRows: 1 });
    expect(slow("SELECT count() FROM person_distinct_ids WHERE distinct_id = 'a'")).toMatchObject({ ok: false, tooSlow: 'estimate' });
    expect(slow("SELECT count() FROM persons WHERE id = '00000000-0000-4000-8000-000000000001'")).toMatchObject({ ok: false, tooSlow: 'estimate' });
    expect(slow("SELECT count() FROM raw_person_distinct_ids WHERE distinct_id = 'a'")).toMatchObject({ ok: true });
    expect(slow("SELECT count() FROM (SELECT distinct_id FROM raw_person_distinct_ids WHERE distinct_id < 'd' GROUP BY distinct_id)")).toMatchObject({ ok: false, tooSlow: 'estimate' });
    db.close();
  });
});
