/** `POST /api/projects/:id/query/` over HTTP: PostHog's response shape, the query:read scope, 400 bodies, the throttle, the result cache, queries too slow. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeRequest } from '../../src/sandbox/api/api-throttle.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { apiCaller } from '../helpers/api-call.js';
import { insertEvents, startManagementSandbox, type ManagementSandbox } from '../helpers/management-sandbox.js';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';

let sb: ManagementSandbox;
const call = apiCaller(
  () => sb.sandbox.url,
  (label) => sb.key(label),
);
/** Calculated afresh: these tests are about answers, not the cache (tested on its own below). */
const hogql = (query: string) => ({ query: { kind: 'HogQLQuery', query }, refresh: 'force_blocking' });

beforeAll(async () => {
  sb = await startManagementSandbox({ now: () => new Date('2026-03-01T12:00:00.000Z') });
  insertEvents(sb.store, 1, [
    { event: '$pageview', timestamp: '2025-01-01T10:00:00.000Z' },
    { event: '$pageview', timestamp: '2025-01-02T10:00:00.000Z' },
    { event: 'signed_up', timestamp: '2025-01-02T11:00:00.000Z' },
  ]);
});
afterAll(async () => {
  await call.close();
  await sb.sandbox.close();
});

describe('the answer', () => {
  it.each(['/api/projects/1/query/', '/api/environments/1/query/', '/api/projects/1/query'])("%s answers in the shape of PostHog's HogQL response", async (path) => {
    const reply = await call('POST', path, 'owner-all', hogql('SELECT event, count() AS n FROM events GROUP BY event ORDER BY event'));
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({
      cache_key: expect.stringMatching(/^cache_[0-9a-f]{32}$/),
      is_cached: false,
      last_refresh: '2026-03-01T12:00:00.000Z',
      next_allowed_client_refresh: '2026-03-01T12:01:00.000Z',
      cache_target_age: '2026-03-01T18:00:00.000Z',
      timezone: 'UTC',
      query_status: null,
      query: 'SELECT event, count() AS n FROM events GROUP BY event ORDER BY event',
      hogql: 'SELECT event, count() AS n FROM events GROUP BY event ORDER BY event ASC LIMIT 100',
      clickhouse: null,
      error: null,
      timings: [],
      columns: ['event', 'n'],
      types: [
        ['event', 'String'],
        ['n', 'UInt64'],
      ],
      results: [
        ['$pageview', 2],
        ['signed_up', 1],
      ],
      hasMore: false,
      limit: 100,
      offset: 0,
    });
  });

  it('with a LIMIT, leaves hasMore, limit and offset null, as PostHog does', async () => {
    const body = (await call('POST', '/api/projects/1/query/', 'owner-query-only', hogql('SELECT timestamp FROM events ORDER BY timestamp LIMIT 1 OFFSET 1'))).json();
    expect(body).toMatchObject({ results: [['2025-01-02T10:00:00Z']], hasMore: null, limit: null, offset: null, types: [['timestamp', "DateTime64(6, 'UTC')"]] });
  });

  it('counts only the project in the path', async () => {
    expect((await call('POST', '/api/projects/2/query/', 'owner-all', hogql('SELECT count() FROM events'))).json()).toMatchObject({ results: [[0]] });
  });
});

describe('refusals', () => {
  it.each<[string, string, unknown, number, Record<string, unknown>]>([
    [
      'a key without query:read',
      'owner-no-query',
      hogql('SELECT 1 FROM events'),
      403,
      { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'query:read'", attr: null },
    ],
    ['no key', '', hogql('SELECT 1 FROM events'), 401, { code: 'not_authenticated' }],
    [
      'an unsupported query',
      'owner-all',
      hogql('SELECT * FROM events'),
      400,
      { type: 'validation_error', code: 'invalid_input', detail: "SELECT * is not supported by the sandbox's HogQL subset (see docs/sandbox-api.md).", attr: null },
    ],
    ['a syntax error', 'owner-all', hogql('SELEC count() FROM events'), 400, { code: 'invalid_input', detail: 'Syntax error at line 1, column 1: expected SELECT, found SELEC', attr: null }],
    ['no query', 'owner-all', {}, 400, { code: 'required', detail: 'This field is required.', attr: 'query' }],
    [
      'another kind',
      'owner-all',
      { query: { kind: 'EventsQuery', select: ['*'] } },
      400,
      { code: 'invalid_input', detail: 'The sandbox answers HogQLQuery queries only, not EventsQuery.', attr: 'query' },
    ],
    ['no SQL text', 'owner-all', { query: { kind: 'HogQLQuery' } }, 400, { code: 'invalid_input', attr: 'query' }],
    ['placeholders', 'owner-all', { query: { kind: 'HogQLQuery', query: 'SELECT {x} FROM events', values: { x: 1 } } }, 400, { code: 'invalid_input', attr: null }],
    ['broken JSON', 'owner-all', '{"query":', 400, { code: 'parse_error' }],
  ])('%s', async (_name, key, body, status, expected) => {
    const reply = await call('POST', '/api/projects/1/query/', key === '' ? null : key, body);
    expect(reply.status).toBe(status);
    expect(reply.json()).toMatchObject(expected);
  });

  it('answers 404 for a project that does not exist', async () => {
    expect((await call('POST', '/api/projects/999/query/', 'owner-all', hogql('SELECT 1 FROM events'))).status).toBe(404);
  });
});

describe('rate limit', () => {
  let throttled: RunningSandbox;
  const at = new Date('2026-03-01T12:00:00.000Z');
  const callThrottled = apiCaller(
    () => throttled.url,
    (label) => sandboxPersonalKey(throttled.store, label),
  );
  beforeAll(async () => {
    throttled = await startSandbox({ port: 0, now: () => at });
  });
  afterAll(async () => {
    await callThrottled.close();
    await throttled.close();
  });

  it('counts queries against the personal key like every other API request', async () => {
    const { id } = throttled.store.db.prepare("SELECT id FROM personal_api_keys WHERE label = 'owner-query-only'").get() as { id: string };
    for (let i = 0; i < 480; i++) takeRequest(throttled.store, id, at.getTime());
    const reply = await callThrottled('POST', '/api/projects/1/query/', 'owner-query-only', hogql('SELECT count() FROM events'));
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('60');
    expect(reply.json()).toMatchObject({ type: 'throttled_error', code: 'throttled' });
  });
});

describe('reading a whole project, as PostHog answers it', () => {
  let knobbed: RunningSandbox;
  let at = new Date('2026-03-01T12:00:00.000Z');
  const callKnobbed = apiCaller(
    () => knobbed.url,
    (label) => sandboxPersonalKey(knobbed.store, label),
  );
  beforeAll(async () => {
    knobbed = await startSandbox({ port: 0, now: () => at, api: { query: { maxRows: 2, maxScannedRows: 4, throttle: [{ limit: 12, spanMs: 60_000 }] } } });
    const db = knobbed.store.db;
    db.prepare("UPDATE projects SET timezone = 'America/New_York' WHERE id = 1").run();
    insertEvents(knobbed.store, 1, [
      { event: 'a', timestamp: '2025-01-01T10:00:00.000Z' },
      { event: 'b', timestamp: '2025-01-01T10:00:00.000Z' },
      { event: 'c', timestamp: '2025-01-02T10:00:00.250Z' },
      { event: 'd', timestamp: '2025-01-03T10:00:00.000Z' },
      { event: 'e', timestamp: '2025-01-05T10:00:00.000Z' },
    ]);
    db.prepare('INSERT INTO persons (id, team_id, properties, created_at) VALUES (7, 1, \'{"email":"a@x"}\', \'2025-01-01T00:00:00.000Z\')').run();
    db.prepare("INSERT INTO person_distinct_ids (team_id, distinct_id, person_id) VALUES (1, 'ada', 7), (1, 'anon-1', 7)").run();
    db.prepare("INSERT INTO groups (team_id, group_type_index, group_key, group_properties, created_at) VALUES (1, 0, 'acme', '{\"seats\":12}', '2025-01-01T00:00:00.000Z')").run();
  });
  afterAll(async () => {
    await callKnobbed.close();
    await knobbed.close();
  });
  const ask = async (query: string) =>
    (await callKnobbed('POST', '/api/projects/1/query/', 'owner-query-only', hogql(query))).json<{ results: unknown[][]; hogql: string; detail?: string; code?: string }>();

  it("caps every answer at the instance's row cap and says so in the hogql it ran; times in the project's zone", async () => {
    const body = await ask(
      "SELECT uuid, event, timestamp FROM events WHERE timestamp >= toDateTime('2025-01-01') AND timestamp < toDateTime('2025-01-04') ORDER BY timestamp ASC, uuid ASC LIMIT 50000",
    );
    expect(body.results).toEqual([
      ['00000000-0000-4000-8000-000000000000', 'a', '2025-01-01T05:00:00-05:00'],
      ['00000000-0000-4000-8000-000000000001', 'b', '2025-01-01T05:00:00-05:00'],
    ]);
    expect(body.hogql).toMatch(/LIMIT 2$/);
    const next = await ask(
      "SELECT event, timestamp FROM events WHERE timestamp < toDateTime('2025-01-04') AND (timestamp > toDateTime('2025-01-01T10:00:00Z') OR (timestamp = toDateTime('2025-01-01T10:00:00Z') AND uuid > '00000000-0000-4000-8000-000000000001')) ORDER BY timestamp ASC LIMIT 50000",
    );
    expect(next.results).toEqual([
      ['c', '2025-01-02T05:00:00.250000-05:00'],
      ['d', '2025-01-03T05:00:00-05:00'],
    ]);
  });

  it("answers a query reading more rows than the execution limit allows with ClickHouse's timeout, as PostHog's 504", async () => {
    const reply = await callKnobbed('POST', '/api/projects/1/query/', 'owner-query-only', hogql('SELECT count() FROM events'));
    expect(reply.status).toBe(504);
    expect(reply.json()).toMatchObject({ type: 'server_error', code: 'error', detail: expect.stringContaining('Query has hit the max execution time'), attr: null });
  });

  it('reads persons, their distinct ids and groups', async () => {
    expect((await ask('SELECT id, properties FROM persons ORDER BY id ASC LIMIT 10')).results).toEqual([['00000000-0000-4000-8000-000000000007', '{"email":"a@x"}']]);
    expect((await ask('SELECT person_id, distinct_id FROM person_distinct_ids ORDER BY person_id ASC, distinct_id ASC LIMIT 10')).results).toEqual([
      ['00000000-0000-4000-8000-000000000007', 'ada'],
      ['00000000-0000-4000-8000-000000000007', 'anon-1'],
    ]);
    expect((await ask('SELECT index, key, properties FROM groups WHERE index = 0 LIMIT 10')).results).toEqual([[0, 'acme', '{"seats":12}']]);
  });

  it('throttles the query endpoint on its own limits with a Retry-After', async () => {
    let reply;
    for (let i = 0; i < 13; i++) reply = await callKnobbed('POST', '/api/projects/1/query/', 'owner-all', hogql("SELECT event FROM events WHERE timestamp > toDateTime('2025-01-03') LIMIT 1"));
    expect(reply!.status).toBe(429);
    expect(reply!.headers['retry-after']).toMatch(/^\d+$/);
    at = new Date(at.getTime() + 61_000);
    expect((await callKnobbed('POST', '/api/projects/1/query/', 'owner-all', hogql("SELECT event FROM events WHERE timestamp > toDateTime('2025-01-03') LIMIT 1"))).status).toBe(200);
  });
});

describe('the result cache, as PostHog keeps it', () => {
  let cached: RunningSandbox;
  let at = new Date('2026-03-01T12:00:00.000Z');
  const callCached = apiCaller(
    () => cached.url,
    (label) => sandboxPersonalKey(cached.store, label),
  );
  beforeAll(async () => {
    cached = await startSandbox({ port: 0, now: () => at, api: { query: { maxEstimatedRows: 3 } } });
    insertEvents(cached.store, 1, [
      { event: 'a', timestamp: '2025-01-01T10:00:00.000Z' },
      { event: 'b', timestamp: '2025-01-01T11:00:00.000Z' },
    ]);
  });
  afterAll(async () => {
    await callCached.close();
    await cached.close();
  });
  const count = async (refresh?: unknown) => {
    const body = { query: { kind: 'HogQLQuery', query: 'SELECT count() FROM events' }, ...(refresh === undefined ? {} : { refresh }) };
    const reply = await callCached('POST', '/api/projects/1/query/', 'owner-query-only', body);
    return { status: reply.status, ...reply.json<{ results?: unknown[][]; is_cached?: boolean; detail?: string; type?: string }>() };
  };

  it('answers an identical query from the cache for six hours unless refresh forces it; a query estimated too slow is a 512', async () => {
    expect(await count()).toMatchObject({ results: [[2]], is_cached: false });
    insertEvents(cached.store, 1, [{ event: 'c', timestamp: '2025-01-01T12:00:00.000Z' }]);
    expect(await count()).toMatchObject({ results: [[2]], is_cached: true });
    expect(await count('blocking')).toMatchObject({ results: [[2]], is_cached: true });
    expect(await count('force_blocking')).toMatchObject({ results: [[3]], is_cached: false });
    insertEvents(cached.store, 1, [{ event: 'd', timestamp: '2025-01-01T13:00:00.000Z' }]);
    at = new Date(at.getTime() + 6 * 3_600_000);
    expect(await count()).toMatchObject({ results: [[3]], is_cached: true });
    at = new Date(at.getTime() + 1);
    const slow = await count();
    expect(slow).toMatchObject({ status: 512, type: 'server_error', detail: expect.stringContaining('Try reducing its scope by changing the time range') });
    expect(await count('force_cache')).toMatchObject({ results: [[3]], is_cached: true });
    expect((await count('sometimes')).status).toBe(400);
  });
});
