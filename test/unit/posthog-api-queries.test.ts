/** The pure parts of --from posthog-api: times to UTC, the queries, the row cap, the lines written. Table-driven. */
import { describe, expect, it } from 'vitest';
import { classifyOutcome } from '../../src/http/classify-outcome.js';
import { distinctIdCountQuery, distinctIdPageQuery, groupLine, groupsOf, pageQuery, personLines, personsByIdQuery } from '../../src/source-apis/posthog-people-queries.js';
import { countEventsQuery, eventLine, eventPageQuery, rowCapOf } from '../../src/source-apis/posthog-queries.js';
import { toUtcExact } from '../../src/source-apis/posthog-time.js';

const HOUR = Date.UTC(2024, 2, 5) / 3_600_000;

describe('toUtcExact', () => {
  it.each([
    ['2024-03-05T09:00:00Z', 'UTC', '2024-03-05T09:00:00Z'],
    ['2024-03-05T09:00:00.123456Z', 'UTC', '2024-03-05T09:00:00.123456Z'],
    ['2024-03-05T04:00:00.000001-05:00', 'America/New_York', '2024-03-05T09:00:00.000001Z'],
    ['2024-03-05T23:30:00.5+05:30', 'Asia/Kolkata', '2024-03-05T18:00:00.5Z'],
    ['2024-03-06T00:15:00+0100', 'UTC', '2024-03-05T23:15:00Z'],
    // Without a zone: the project's.
    ['2024-07-01 12:00:00.999999', 'Europe/Paris', '2024-07-01T10:00:00.999999Z'],
    ['2024-01-01 00:00:00', 'UTC', '2024-01-01T00:00:00Z'],
  ])('%s in %s is %s', (text, zone, utc) => expect(toUtcExact(text, zone)).toBe(utc));

  it.each(['yesterday', '2024-02-30T00:00:00Z', '2024-03-05T25:00:00Z', ''])('%s is not a time', (text) => expect(toUtcExact(text)).toBeUndefined());
});

describe('the event queries', () => {
  it('count and page one window, half-open, cursor after (timestamp, uuid), never OFFSET', () => {
    const span = { first: HOUR, last: HOUR + 23 };
    expect(countEventsQuery(span)).toBe("SELECT count() FROM events WHERE timestamp >= toDateTime('2024-03-05T00:00:00.000Z') AND timestamp < toDateTime('2024-03-06T00:00:00.000Z')");
    const page = eventPageQuery(span, { timestamp: '2024-03-05T10:00:00.5Z', uuid: "0190-'x" }, 50_000);
    expect(page).toContain("AND (timestamp > toDateTime('2024-03-05T10:00:00.5Z') OR (timestamp = toDateTime('2024-03-05T10:00:00.5Z') AND uuid > '0190-\\'x'))");
    expect(page).toMatch(/ORDER BY timestamp ASC, uuid ASC LIMIT 50000$/);
    expect(page).not.toContain('OFFSET');
  });

  it.each([
    // asked, printed hogql, received, more expected -> cap
    [50_000, 'SELECT ... LIMIT 50000', 50_000, true, 50_000],
    [50_000, 'SELECT ... LIMIT 10000', 10_000, true, 10_000],
    [50_000, null, 10_000, true, 10_000],
    [50_000, null, 120, false, 50_000],
    [10_000, 'SELECT ... LIMIT 10000 OFFSET 0', 3, false, 10_000],
    // A printed cap stands when fewer rows came than counted (one deleted, copies not merged).
    [50_000, 'SELECT ... LIMIT 50000', 9_999, true, 50_000],
  ] as const)('asked %i, hogql %s, %i rows, more %s: cap %i', (asked, hogql, received, more, cap) => expect(rowCapOf(asked, hogql, received, more)).toBe(cap));

  it("writes a row as a line of PostHog's export, in UTC, properties as the JSON text held", () => {
    const line = eventLine(['0190a000-0000-7000-8000-000000000001', 'purchase', 'u1', '2024-03-05T04:00:00.000001-05:00', '{"big":9007199254740993}', 'a:href="/"'], 'America/New_York');
    expect(line).toEqual({
      ok: true,
      line: '{"uuid":"0190a000-0000-7000-8000-000000000001","event":"purchase","distinct_id":"u1","timestamp":"2024-03-05T09:00:00.000001Z","properties":"{\\"big\\":9007199254740993}","elements_chain":"a:href=\\"/\\""}\n',
      cursor: { timestamp: '2024-03-05T09:00:00.000001Z', uuid: '0190a000-0000-7000-8000-000000000001' },
    });
    expect(eventLine([null, 'x', 'u', 'now', '{}', ''], 'UTC').ok).toBe(false);
  });

  it.each([
    [512, 'query', 'too-slow'],
    [504, 'query', 'too-slow'],
    [500, 'query', 'retry'],
    [400, 'query', 'rejected'],
    [512, 'plain', 'retry'],
    [504, 'plain', 'retry'],
  ] as const)('HTTP %i from a %s endpoint: %s', (status, endpoint, type) => {
    const body = Buffer.from(JSON.stringify({ type: 'server_error', code: 'error', detail: 'Estimated query execution time is too long.', attr: null }));
    expect(classifyOutcome({ type: 'response', status, headers: {}, body }, 0, endpoint).type).toBe(type);
  });
});

describe('persons and groups', () => {
  it('pages groups by their key; reads distinct ids by key ranges of the raw table, persons by id', () => {
    expect(pageQuery(groupsOf(0), ['k1'], 100)).toBe("SELECT key, properties, created_at FROM groups WHERE index = 0 AND key > 'k1' ORDER BY key ASC LIMIT 100");
    expect(distinctIdPageQuery({ from: 'a', to: 'b' }, "o'k", 100)).toBe(
      "SELECT distinct_id, argMax(person_id, version) FROM raw_person_distinct_ids WHERE distinct_id >= 'a' AND distinct_id < 'b' AND distinct_id > 'o\\'k' GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0 ORDER BY distinct_id ASC LIMIT 100",
    );
    expect(distinctIdCountQuery({})).toBe('SELECT count() FROM (SELECT distinct_id FROM raw_person_distinct_ids GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0)');
    expect(personsByIdQuery(['p1', 'p2'])).toBe(
      "SELECT id, argMax(properties, version), argMax(created_at, version) FROM raw_persons WHERE id IN ('p1', 'p2') GROUP BY id HAVING argMax(is_deleted, version) = 0 ORDER BY id ASC LIMIT 2",
    );
  });

  it('a person is its properties on its first id and a link from every other id; none without an id', () => {
    const lines = personLines(['p1', '{"email":"a@x","n":9007199254740993}', '2024-01-01T00:00:00Z'], ['z-anon', 'ada'], 'UTC');
    expect(lines).toEqual([
      '{"$migrate_distinct_id":"ada","$migrate_timestamp":"2024-01-01T00:00:00Z","$set":{"email":"a@x","n":9007199254740993}}\n',
      '{"$migrate_distinct_id":"ada","$migrate_timestamp":"2024-01-01T00:00:00Z","$migrate_anon_distinct_id":"z-anon","$set":{}}\n',
    ]);
    expect(personLines(['p2', '{}', null], [], 'UTC')).toEqual([]);
    // An id PostHog refuses to merge on ('anonymous') is linked, never the one the others are linked to.
    expect(personLines(['p3', '{}', null], ['anonymous', 'bea'], 'UTC').map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      { $migrate_distinct_id: 'bea', $set: {} },
      { $migrate_distinct_id: 'bea', $migrate_anon_distinct_id: 'anonymous', $set: {} },
    ]);
  });

  it('a group is its properties as written, with its key and time', () => {
    expect(groupLine(['acme', '{"name":"Acme","seats":12}', '2024-01-01T00:00:00Z'], 'UTC')).toBe(
      '{"name":"Acme","seats":12,"$migrate_group_key":"acme","$migrate_timestamp":"2024-01-01T00:00:00Z"}\n',
    );
    expect(groupLine(['empty', '{}', null], 'UTC')).toBe('{"$migrate_group_key":"empty"}\n');
  });
});
