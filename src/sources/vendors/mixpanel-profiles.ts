/**
 * Mixpanel's user and group profiles (`{"$distinct_id": ..., "$properties": {...}}`, as its
 * Engage API and its profile export give them) as lines of the users and groups files that
 * identify-users and identify-groups stage: a user profile is one update (`$set`) of its
 * distinct id, a group profile one `$groupidentify` of its key. Mixpanel's reserved profile
 * names become PostHog's where PostHog has one; every other property is kept as it is. Pure.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import type { RowProblem } from '../../events/reject-reasons.js';
import { setOwnProperty } from '../../json/own-property.js';
import { GROUP_ROLES, PERSON_ROLES } from '../../source-apis/posthog-people-queries.js';
import { groupMapper } from '../people/group-record.js';
import type { RecordMapper } from '../people/record-readers.js';
import { userMapper } from '../people/user-record.js';

/** Mixpanel's reserved profile properties and the names they are staged under (docs/sources.md). */
export const MIXPANEL_PROFILE_RENAMES: Readonly<Record<string, string>> = {
  $email: 'email',
  $name: 'name',
  $first_name: 'first_name',
  $last_name: 'last_name',
  $phone: 'phone',
  $avatar: 'avatar',
  $created: 'created',
  $last_seen: 'last_seen',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A profile's properties with the reserved names renamed; a rename never overwrites a property of that name. */
export function profileProperties(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(properties)) {
    const renamed = Object.hasOwn(MIXPANEL_PROFILE_RENAMES, key) ? MIXPANEL_PROFILE_RENAMES[key] : undefined;
    setOwnProperty(out, renamed !== undefined && !Object.hasOwn(properties, renamed) ? renamed : key, value);
  }
  return out;
}

/**
 * `$last_seen` as an ISO time: Mixpanel writes it as `2024-03-05T10:20:30` (UTC, no zone), or
 * with a zone; epoch seconds or milliseconds are taken too. Undefined when absent or not a time.
 */
export function lastSeenIso(value: unknown): string | undefined {
  let ms: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) ms = value > 1e11 ? value : value * 1000;
  else if (typeof value === 'string' && /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$/.test(value.trim())) {
    const text = value.trim().replace(' ', 'T');
    ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`);
  }
  return ms === undefined || Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export interface Profile {
  distinctId: unknown;
  properties: Record<string, unknown>;
}

/** The parts of one profile record; a record that is not an object gives no distinct id (rejected when staged). */
export function readProfile(record: unknown): Profile {
  if (!isObject(record)) return { distinctId: undefined, properties: {} };
  const properties = isObject(record.$properties) ? record.$properties : {};
  return { distinctId: record.$distinct_id, properties };
}

/** A user profile as a users-file record: an update of its distinct id at `$last_seen` (else at the reader's default time). */
export function profileUserRecord(record: unknown): Record<string, unknown> {
  const { distinctId, properties } = readProfile(record);
  const timestamp = lastSeenIso(properties.$last_seen);
  return { [PERSON_ROLES.distinct_id]: distinctId ?? null, ...(timestamp === undefined ? {} : { [PERSON_ROLES.timestamp]: timestamp }), $set: profileProperties(properties) };
}

/** A group profile as a groups-file record: its key is the profile's `$distinct_id`, its properties the group's. */
export function profileGroupRecord(record: unknown): Record<string, unknown> {
  const { distinctId, properties } = readProfile(record);
  const out = profileProperties(properties);
  setOwnProperty(out, GROUP_ROLES.group_key, distinctId ?? null);
  const timestamp = lastSeenIso(properties.$last_seen);
  if (timestamp !== undefined) setOwnProperty(out, GROUP_ROLES.timestamp, timestamp);
  return out;
}

/** The profile's own names in a problem: its distinct id and `$last_seen`, not the roles they were read under. */
const PROFILE_FIELDS: Readonly<Record<string, string>> = {
  [PERSON_ROLES.distinct_id]: '$distinct_id',
  [GROUP_ROLES.group_key]: '$distinct_id',
  [PERSON_ROLES.timestamp]: '$properties.$last_seen',
};

function profileField(name: string | undefined): string | undefined {
  return name !== undefined && Object.hasOwn(PROFILE_FIELDS, name) ? PROFILE_FIELDS[name] : name;
}

/** A candidate or problem naming the profile's fields rather than the roles they were read under. */
function asProfile(result: CandidateEvent | RowProblem): CandidateEvent | RowProblem {
  if ('reason' in result) return { ...result, field: profileField(result.field)! };
  const f = result.fieldNames;
  return f === undefined ? result : { ...result, fieldNames: { ...f, distinctId: profileField(f.distinctId), timestamp: profileField(f.timestamp) } };
}

/** Mixpanel's profiles (JSON lines, or a JSON array) read as a users file: the Engage API's pages, `identify-users --from mixpanel-profiles`. */
export const mixpanelUserProfiles: RecordMapper = {
  roles: userMapper.roles,
  map: (record, options) => asProfile(userMapper.map(profileUserRecord(record), { ...options, columns: { ...PERSON_ROLES } })),
};

/** Group profiles read as a groups file: the Engage API's pages, `identify-groups --from mixpanel-profiles --group-type <group key>`. */
export const mixpanelGroupProfiles: RecordMapper = {
  roles: groupMapper.roles,
  map: (record, options) => asProfile(groupMapper.map(profileGroupRecord(record), { ...options, columns: { ...GROUP_ROLES }, keyColumn: GROUP_ROLES.group_key })),
};
