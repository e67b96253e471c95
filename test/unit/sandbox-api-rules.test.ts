import { describe, expect, it } from 'vitest';
import { hasScope } from '../../src/sandbox/api/api-auth.js';
import { decodeCursor, encodeCursor } from '../../src/sandbox/api/api-pagination.js';
import { throttleWaitSeconds } from '../../src/sandbox/api/api-throttle.js';
import { levelChangeRefusal, parseLevel, writeRefusal, type MemberChange } from '../../src/sandbox/api/member-rules.js';
import { accessChangeRefusal, accessLevelName, accessSource, parseAccessLevel, type AccessChange } from '../../src/sandbox/api/access-control-rules.js';
import { queryFlag } from '../../src/sandbox/api/groups-routes.js';

describe('hasScope', () => {
  it.each<[string[], string, boolean]>([
    [['*'], 'export:write', true],
    [['export:read'], 'export:read', true],
    [['export:write'], 'export:read', true],
    [['export:read'], 'export:write', false],
    [['group:read'], 'export:read', false],
    [[], 'project:read', false],
    [['project:write'], 'group:read', false],
  ])('%j grants %s: %s', (scopes, needed, expected) => expect(hasScope(scopes, needed)).toBe(expected));
});

describe('member rules', () => {
  const change = (overrides: Partial<MemberChange>): MemberChange => ({
    requesterUserId: 2,
    requesterLevel: 8,
    targetUserId: 4,
    targetLevel: 1,
    newLevel: 8,
    ...overrides,
  });

  it.each<[string, Partial<MemberChange>, string | undefined]>([
    ['admin promotes a member', {}, undefined],
    ['admin demotes an admin', { targetLevel: 8, newLevel: 1 }, undefined],
    ['owner promotes', { requesterLevel: 15 }, undefined],
    ['grant above own level', { requesterLevel: 1, newLevel: 8 }, 'You can only set access level to lower or equal to your current one.'],
    ['own level', { targetUserId: 2, newLevel: 1 }, "You can't set your own access level."],
    ['own level, same value', { targetUserId: 2, newLevel: 8 }, "You can't set your own access level."],
    ['own membership without a level change', { targetUserId: 2, newLevel: undefined }, undefined],
    ['edit someone above', { requesterLevel: 8, targetLevel: 15, newLevel: 1 }, 'You can only edit others with level lower or equal to you.'],
  ])('%s', (_name, overrides, expected) => expect(levelChangeRefusal(change(overrides))).toBe(expected));

  it.each<['PATCH' | 'DELETE', number, boolean, string | undefined]>([
    ['PATCH', 8, false, undefined],
    ['PATCH', 15, false, undefined],
    ['PATCH', 1, false, "You don't have sufficient permissions in the project."],
    ['DELETE', 1, false, "You don't have sufficient permissions in the project."],
    ['DELETE', 1, true, undefined],
    ['DELETE', 8, false, undefined],
  ])('%s by level %i (self: %s)', (method, level, self, expected) => expect(writeRefusal(method, level, self)).toBe(expected));

  it.each<[Record<string, unknown>, ReturnType<typeof parseLevel>]>([
    [{}, { level: undefined }],
    [{ level: 1 }, { level: 1 }],
    [{ level: 8 }, { level: 8 }],
    [{ level: '8' }, { level: 8 }],
    [{ level: 15 }, { invalid: '15' }],
    [{ level: 'admin' }, { invalid: 'admin' }],
    [{ level: null }, { invalid: 'null' }],
  ])('parseLevel(%j)', (body, expected) => expect(parseLevel(body)).toEqual(expected));
});

describe('throttleWaitSeconds', () => {
  const now = 10_000_000;
  const burst = (n: number, spacingMs: number, endMs = now) => Array.from({ length: n }, (_, i) => endMs - (n - 1 - i) * spacingMs);
  it.each<[string, number[], number]>([
    ['no history', [], 0],
    ['under the burst limit', burst(479, 10), 0],
    ['at the burst limit', burst(480, 0), 60],
    ['at the burst limit, spread over 4.79 s', burst(480, 10), 56],
    ['burst limit reached 50 s ago', burst(480, 0, now - 50_000), 10],
    ['burst limit reached over a minute ago', burst(480, 0, now - 60_000), 0],
    ['sustained limit', burst(4800, 700), 241],
  ])('%s', (_name, times, expected) => expect(throttleWaitSeconds(times, now)).toBe(expected));
});

describe('group cursors', () => {
  it.each([0, 100, 12_300])('round-trips offset %i', (offset) => expect(decodeCursor(encodeCursor(offset))).toBe(offset));
  it('starts at 0 without a cursor and refuses garbage', () => {
    expect(decodeCursor(null)).toBe(0);
    expect(decodeCursor('not-a-cursor')).toBeUndefined();
  });
});

describe('access-control rules', () => {
  const change = (overrides: Partial<AccessChange>): AccessChange => ({ requesterUserId: 2, requesterLevel: 8, targetUserId: 4, targetLevel: 1, newLevel: 'admin', ...overrides });

  it.each<[string, Partial<AccessChange>, string | undefined]>([
    ['a project admin grants admin', {}, undefined],
    ['an organization owner grants', { requesterLevel: 15 }, undefined],
    ['a project admin removes someone', { newLevel: null }, undefined],
    ['a member may not', { requesterLevel: 1 }, 'Must be admin to modify project permissions.'],
    ['a member may not even leave this way', { requesterLevel: 1, targetUserId: 2, newLevel: null }, 'Must be admin to modify project permissions.'],
    ['nobody sets their own level', { targetUserId: 2, newLevel: 'member' }, "You can't set your own access level."],
    ['an admin may leave', { targetUserId: 2, newLevel: null }, undefined],
    ['"none" for yourself is leaving', { targetUserId: 2, newLevel: 'none' }, undefined],
  ])('%s', (_name, overrides, expected) => expect(accessChangeRefusal(change(overrides))).toBe(expected));

  it.each<[Record<string, unknown>, ReturnType<typeof parseAccessLevel>]>([
    [{ access_level: 'member' }, { level: 'member' }],
    [{ access_level: 'admin' }, { level: 'admin' }],
    [{ access_level: 'none' }, { level: 'none' }],
    [{ access_level: null }, { level: null }],
    [{}, { missing: true }],
    [{ access_level: 'editor' }, { invalid: 'Invalid access level. Must be one of: none, member, admin' }],
    [{ access_level: 8 }, { invalid: 'Invalid access level. Must be one of: none, member, admin' }],
  ])('parseAccessLevel(%j)', (body, expected) => expect(parseAccessLevel(body)).toEqual(expected));

  it.each([
    [1, 'member', 'explicit_member'],
    [8, 'admin', 'organization_admin'],
    [15, 'admin', 'organization_admin'],
  ])('level %i reads as %s; an organization at that level gives access as %s', (level, name, source) => {
    expect(accessLevelName(level)).toBe(name);
    expect(accessSource(level)).toBe(source);
  });
});

describe('skip_create_notebook spellings (PostHog str_to_bool)', () => {
  it.each<[string | null, boolean]>([
    ['true', true],
    ['1', true],
    ['YES', true],
    ['on', true],
    ['t', true],
    ['false', false],
    ['0', false],
    ['', false],
    [null, false],
    ['maybe', false],
  ])('%j -> %s', (value, expected) => expect(queryFlag(value)).toBe(expected));
});
