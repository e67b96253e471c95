/** Checks 4 to 7 of doctor (scopes, machine, data, ingestion rules, billing) and the disk estimates, on tables of facts. */
import { describe, expect, it } from 'vitest';
import { billingCheck } from '../../src/doctor/checks/billing-check.js';
import { existingDataCheck } from '../../src/doctor/checks/data-check.js';
import { ingestionRulesCheck } from '../../src/doctor/checks/ingestion-rules-check.js';
import { clockCheck, diskCheck, nodeCheck } from '../../src/doctor/checks/machine-checks.js';
import { scopeCheck } from '../../src/doctor/checks/scope-check.js';
import type { BillingFacts, MachineFacts, PersonalKeyFacts, ProjectEventsFacts, StagedFacts, StagedRuleFacts } from '../../src/doctor/doctor-facts.js';
import { importNeed, roomFor, stagingNeed, WAL_ALLOWANCE_BYTES } from '../../src/machine/disk-estimate.js';
import { grantsScope } from '../../src/doctor/scopes.js';

const MIB = 1024 * 1024;

describe('scopes check', () => {
  it.each<[string, PersonalKeyFacts, 'ok' | 'warning', RegExp]>([
    ['every scope', { state: 'listed', projectId: '1', scopes: ['*'], scopedTeams: [] }, 'ok', /has every scope the commands use/],
    [
      'writes imply reads',
      {
        state: 'listed',
        projectId: '1',
        scopes: ['project:write', 'query:read', 'group:read', 'organization_member:read', 'access_control:write', 'export:write', 'insight:read', 'dashboard:read', 'billing:read'],
        scopedTeams: [],
      },
      'ok',
      /every scope/,
    ],
    ['no query:read', { state: 'listed', projectId: '1', scopes: ['project:read'], scopedTeams: [] }, 'warning', /lacks query:read \(`migrate verify` and the existing-data check\), group:read/],
    ['limited to another project', { state: 'listed', projectId: '1', scopes: ['*'], scopedTeams: [7, 8] }, 'warning', /limited to projects 7, 8, not project 1/],
    ['limited to this project', { state: 'listed', projectId: '1', scopes: ['*'], scopedTeams: [1] }, 'ok', /every scope/],
    [
      'probed, all reads granted',
      { state: 'probed', projectId: '1', granted: ['project:read'], missing: [] },
      'ok',
      /every read scope .*access_control:write and export:write cannot be tried without changing something/,
    ],
    ['probed, one missing', { state: 'probed', projectId: '1', granted: [], missing: ['group:read'] }, 'warning', /lacks group:read \(`migrate groups`/],
    ['no personal key', { state: 'none' }, 'warning', /no personal API key is configured: `migrate verify` cannot prove/],
    ['unusable', { state: 'unusable', reason: 'environment variable PHX is not set' }, 'warning', /cannot be used: environment variable PHX is not set/],
    ['refused', { state: 'refused', message: 'Personal API key found in request Authorization header is invalid.' }, 'warning', /refused the personal API key/],
  ])('%s', (_name, facts, verdict, message) => {
    const result = scopeCheck(facts);
    expect(result.verdict).toBe(verdict);
    expect(result.message).toMatch(message);
  });

  it.each([
    [['*'], 'query:read', true],
    [['query:write'], 'query:read', true],
    [['query:read'], 'query:write', false],
    [['export:read'], 'insight:read', false],
  ])('%j grants %s: %s', (scopes, needed, granted) => {
    expect(grantsScope(scopes, needed)).toBe(granted);
  });
});

describe('machine checks', () => {
  const machine = (fields: Partial<MachineFacts>): MachineFacts => ({
    disk: { path: '/data', freeBytes: 100 * MIB },
    neededBytes: 10 * MIB,
    localNowMs: Date.parse('2026-03-01T12:00:00Z'),
    serverDate: 'Sun, 01 Mar 2026 12:00:00 GMT',
    nodeVersion: '22.19.0',
    ...fields,
  });

  it.each<[string, Partial<MachineFacts>, 'ok' | 'warning' | 'problem', RegExp]>([
    ['room enough', {}, 'ok', /100 MiB free next to \/data; the import's delivery records need about 10 MiB$/],
    ['under twice the need', { disk: { path: '/data', freeBytes: 15 * MIB } }, 'warning', /more than half of it/],
    ['under the need', { disk: { path: '/data', freeBytes: 5 * MIB } }, 'problem', /would fill the disk/],
    ['nothing to import', { neededBytes: 0 }, 'ok', /nothing staged is waiting/],
    ['unreadable', { disk: { path: '/data', error: 'ENOSYS' } }, 'warning', /could not be read: ENOSYS/],
  ])('disk: %s', (_name, fields, verdict, message) => {
    const result = diskCheck(machine(fields));
    expect([result.verdict, result.message]).toEqual([verdict, expect.stringMatching(message)]);
  });

  it.each<[string, Partial<MachineFacts>, 'ok' | 'warning', RegExp]>([
    ['in step', {}, 'ok', /within 1 s of the server's/],
    ['4 minutes ahead', { localNowMs: Date.parse('2026-03-01T12:04:00Z') }, 'ok', /within 240 s/],
    ['7 minutes ahead', { localNowMs: Date.parse('2026-03-01T12:07:00Z') }, 'warning', /7 minutes ahead of the server's/],
    ['an hour behind', { localNowMs: Date.parse('2026-03-01T11:00:00Z') }, 'warning', /60 minutes behind/],
    ['no Date header', { serverDate: undefined }, 'ok', /not measured/],
  ])('clock: %s', (_name, fields, verdict, message) => {
    const result = clockCheck(machine(fields));
    expect([result.verdict, result.message]).toEqual([verdict, expect.stringMatching(message)]);
  });

  it.each([
    ['22.19.0', 'ok'],
    ['24.1.0', 'ok'],
    ['22.18.9', 'problem'],
    ['20.18.0', 'problem'],
  ])('node %s: %s', (nodeVersion, verdict) => {
    expect(nodeCheck(machine({ nodeVersion })).verdict).toBe(verdict);
  });
});

describe('disk estimates', () => {
  it('counts only bytes not staged before, at 1.5 times, plus the write-ahead log', () => {
    const sources = [
      { path: '/a.csv', sizeBytes: 10 * MIB, compressed: false },
      { path: '/b.csv', sizeBytes: 4 * MIB, compressed: false },
    ];
    expect(stagingNeed(sources, new Map())).toEqual({ bytes: 21 * MIB + WAL_ALLOWANCE_BYTES, exact: true });
    expect(
      stagingNeed(
        sources,
        new Map([
          ['/a.csv', 10 * MIB],
          ['/b.csv', 2 * MIB],
        ]),
      ),
    ).toEqual({ bytes: 3 * MIB + WAL_ALLOWANCE_BYTES, exact: true });
    expect(
      stagingNeed(
        sources,
        new Map([
          ['/a.csv', 10 * MIB],
          ['/b.csv', 4 * MIB],
        ]),
      ),
    ).toEqual({ bytes: 0, exact: true });
  });

  it('guesses for compressed sources, and says so', () => {
    expect(stagingNeed([{ path: '/a.csv.gz', sizeBytes: MIB, compressed: true }], new Map())).toEqual({ bytes: 12 * MIB + WAL_ALLOWANCE_BYTES, exact: false });
  });

  it('an import needs room for its delivery records', () => {
    expect(importNeed(0)).toBe(0);
    expect(importNeed(1_000_000)).toBe(32_000_000 + WAL_ALLOWANCE_BYTES);
    expect([roomFor(99, 100), roomFor(199, 100), roomFor(200, 100)]).toEqual(['short', 'tight', 'enough']);
  });
});

describe('existing data check', () => {
  const staged = (settled = 0): StagedFacts => ({
    summary: { total: 30, events: 30, persons: 0, groups: 0, firstMs: Date.parse('2025-01-01'), lastMs: Date.parse('2025-01-03'), settledForProject: settled },
    perDay: [
      { day: '2025-01-01', count: 5 },
      { day: '2025-01-02', count: 20 },
      { day: '2025-01-03', count: 5 },
    ],
  });
  const counted = (counts: number[]): ProjectEventsFacts => ({ state: 'counted', perDay: counts.map((count, i) => ({ day: `2025-01-0${i + 1}`, count })) });

  it.each<[string, StagedFacts | undefined, ProjectEventsFacts, 'ok' | 'warning', RegExp]>([
    ['nothing staged', undefined, { state: 'not-checked', reason: 'x' }, 'ok', /no events staged yet/],
    [
      'an empty project',
      staged(),
      counted([0, 0, 0]),
      'ok',
      /holds no events on the staged days; the migration adds 30 events over 3 days \(2025-01-01 .. 2025-01-03; at most 20 a day, on 2025-01-02\)/,
    ],
    ['a project with data', staged(), counted([7, 0, 2]), 'warning', /already holds 9 events on 2 of the 3 staged days \(2025-01-01: 7, 2025-01-03: 2\): a re-import, or a live SDK/],
    ['a continued import', staged(10), counted([7, 0, 3]), 'ok', /this staging file already delivered 10 events to it/],
    ['no query:read', staged(), { state: 'not-checked', reason: 'the personal key lacks query:read' }, 'ok', /was not checked: the personal key lacks query:read/],
    ['the query failed', staged(), { state: 'failed', message: '500: boom' }, 'warning', /could not be counted: 500: boom/],
  ])('%s', (_name, stagedFacts, projectEvents, verdict, message) => {
    const result = existingDataCheck(stagedFacts, projectEvents);
    expect([result.verdict, result.message]).toEqual([verdict, expect.stringMatching(message)]);
  });
});

describe('ingestion rules check', () => {
  const uses = (...types: string[]): StagedRuleFacts['groupTypes'] => types.map((type, i) => ({ type, count: 2, path: '/d/e.csv', line: i + 2 }));
  it.each<[string, StagedRuleFacts | undefined, 'ok' | 'warning' | 'problem', RegExp]>([
    ['no staging file', undefined, 'ok', /no staging file to check yet/],
    ['all well', { groupTypes: uses('company'), olderGeoReads: [] }, 'ok', /no staged row would be located at this machine; group types company \(PostHog takes 5\)/],
    [
      'six group types',
      { groupTypes: uses('a', 'b', 'c', 'd', 'e', 'f'), olderGeoReads: [] },
      'problem',
      /uses 6 group types.*: a \(2 rows, first at \/d\/e.csv:2\), .*f \(2 rows, first at \/d\/e.csv:7\)/,
    ],
    [
      'rows staged by an older migrate',
      { groupTypes: [], olderGeoReads: [{ path: '/d/old.csv', staged: 1200 }] },
      'warning',
      /1 read staged by an older migrate \(\/d\/old.csv\) set no \$geoip_disable: PostHog would locate their 1,200 rows, and their persons, at this machine/,
    ],
  ])('%s', (_name, rules, verdict, message) => {
    const result = ingestionRulesCheck(rules);
    expect([result.verdict, result.message]).toEqual([verdict, expect.stringMatching(message)]);
  });
});

describe('billing check', () => {
  it.each<[string, BillingFacts, 'ok' | 'warning' | 'problem', RegExp]>([
    [
      'no limit',
      { state: 'read', eventsUsage: 1000, eventsLimit: null, periodEnd: '2026-04-01T00:00:00Z' },
      'ok',
      /3,000 events staged; the organization has no billing limit on events \(1,000 events this billing period, a period that ends 2026-04-01\)/,
    ],
    ['room under the limit', { state: 'read', eventsUsage: 1000, eventsLimit: 10_000, periodEnd: null }, 'ok', /used 1,000 of its limit of 10,000 events this billing period, room for the migration/],
    [
      'the migration passes the limit',
      { state: 'read', eventsUsage: 8000, eventsLimit: 10_000, periodEnd: null },
      'warning',
      /may pass the limit \(PostHog drops events over a billing limit while still answering 200/,
    ],
    ['over the limit already', { state: 'read', eventsUsage: 10_000, eventsLimit: 10_000, periodEnd: null }, 'problem', /would look delivered and store nothing/],
    ['no billing access', { state: 'unreadable', status: 403, message: 'You do not have billing access' }, 'warning', /the billing API did not answer \(403: You do not have billing access\)/],
    [
      'not checked',
      { state: 'not-checked', reason: 'no personal API key is configured' },
      'warning',
      /PostHog drops events over a billing limit while still answering 200, and the organization's usage was not read: no personal API key/,
    ],
  ])('%s', (_name, billing, verdict, message) => {
    const result = billingCheck(billing, 3000);
    expect([result.verdict, result.message]).toEqual([verdict, expect.stringMatching(message)]);
    if (verdict !== 'ok') expect(result.fix).toMatch(/raise it above what the migration adds/);
  });
});
