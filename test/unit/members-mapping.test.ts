/** Levels mapped between the explicit-members numbers and access control's names, and members read from either API. */
import { describe, expect, it } from 'vitest';
import { accessLevelFor, effectiveLevel, levelForAccess, levelName, organizationLevelFor, organizationLevelName } from '../../src/management/members/member-levels.js';
import { fromExplicitMember, fromOrganizationAdmin, fromUserAccess, isPersonalGrant } from '../../src/management/members/project-member.js';

describe('level mapping', () => {
  it.each([
    [1, 'member'],
    [8, 'admin'],
  ] as const)('%i -> %s -> %i', (level, name) => {
    expect(accessLevelFor(level)).toBe(name);
    expect(levelForAccess(name)).toBe(level);
  });

  it.each([
    ['none', null],
    [null, null],
    ['owner', undefined],
    ['viewer', undefined],
    ['', undefined],
  ] as const)('access level %j -> %j', (name, level) => expect(levelForAccess(name)).toBe(level));

  it.each([
    ['member', 1],
    ['admin', 8],
    ['owner', 15],
    ['guest', undefined],
  ] as const)('organization level %s -> %j', (name, level) => expect(organizationLevelFor(name)).toBe(level));

  it.each([
    [1, 'member'],
    [8, 'admin'],
    [15, 'owner'],
    [5, '5'],
  ] as const)('organization level %i is named %s', (level, name) => expect(organizationLevelName(level)).toBe(name));

  it.each([
    [1, 'member'],
    [8, 'administrator'],
    [15, 'owner'],
    [5, 'custom'],
  ] as const)('level %i reads %s', (level, name) => expect(levelName(level)).toBe(name));

  it.each([
    [1, 1, 1],
    [8, 1, 8],
    [1, 15, 15],
    [null, 8, 8],
    [null, null, 0],
  ] as const)('grant %j with organization level %j -> %i', (grant, organization, expected) => expect(effectiveLevel(grant, organization)).toBe(expected));
});

const nia = { uuid: '01930000-0000-7000-8000-0000000000b4', first_name: 'Nia', last_name: 'Newcomer', email: 'nia@sandbox.local' };
const olivia = { uuid: '01930000-0000-7000-8000-0000000000b1', first_name: 'Olivia', last_name: 'Owner', email: 'olivia@sandbox.local' };

describe('members from either API', () => {
  it('an explicit member keeps its levels', () => {
    const member = fromExplicitMember({ id: 'm1', level: 8, parent_level: 1, parent_membership_id: 'om4', joined_at: 'j', updated_at: 'u', user: nia, effective_level: 8 });
    expect(member).toEqual({
      user: nia,
      level: 8,
      effective_level: 8,
      parent_level: 1,
      access_level: 'admin',
      access_source: 'explicit_member',
      organization_membership_id: 'om4',
      joined_at: 'j',
      updated_at: 'u',
    });
  });

  it('an organization owner has no grant and effective level 15', () => {
    expect(fromOrganizationAdmin({ id: 'om1', level: 15, user: olivia })).toMatchObject({
      level: null,
      effective_level: 15,
      parent_level: 15,
      access_level: 'admin',
      access_source: 'organization_admin',
    });
  });

  it.each([
    [
      'a member control',
      { access_level: 'member', access_source: 'explicit_member', organization_membership_level: 'member' },
      { level: 1, effective_level: 1, parent_level: 1, access_level: 'member' },
    ],
    ['an admin control', { access_level: 'admin', access_source: 'explicit_member', organization_membership_level: 'member' }, { level: 8, effective_level: 8, parent_level: 1 }],
    ['the organization owner', { access_level: 'admin', access_source: 'organization_admin', organization_membership_level: 'owner' }, { level: null, effective_level: 15, parent_level: 15 }],
    ['an organization admin', { access_level: 'admin', access_source: 'organization_admin', organization_membership_level: 'admin' }, { level: null, effective_level: 8, parent_level: 8 }],
    ['the project default', { access_level: 'member', access_source: 'default', organization_membership_level: 'member' }, { level: null, effective_level: 1, access_source: 'default' }],
  ])('users_with_access: %s', (_name, entry, expected) => {
    const access = { user_id: nia.uuid, organization_membership_id: 'om4', ...entry };
    expect(fromUserAccess(access, { id: 'om4', level: 1, user: nia })).toMatchObject({ user: nia, organization_membership_id: 'om4', ...expected });
  });

  it('without the organization list, a users_with_access entry keeps its uuid and ids', () => {
    expect(
      fromUserAccess({ user_id: nia.uuid, access_level: 'member', access_source: 'explicit_member', organization_membership_id: 'om4', organization_membership_level: null }, undefined),
    ).toMatchObject({
      user: { uuid: nia.uuid },
      level: 1,
      parent_level: null,
      effective_level: 1,
      organization_membership_id: 'om4',
    });
  });

  it.each([
    ['explicit_member', true],
    ['project_admin', true],
    ['organization_admin', false],
    ['default', false],
    ['explicit_role', false],
    ['creator', false],
  ])('%s is a personal grant: %s', (source, expected) => expect(isPersonalGrant(source)).toBe(expected));
});
