/**
 * Mixpanel's user and group profiles (`{"$distinct_id": ..., "$properties": {...}}`, as its
 * Engage API and its profile export give them) as lines of the users and groups files that
 * identify-users and identify-groups stage: a user profile is one update (`$set`) of its
 * distinct id, a group profile one `$groupidentify` of its key. Mixpanel's reserved profile
 * names become PostHog's where PostHog has one; every other property is kept as it is. Pure.
 */
import { setOwnProperty } from '../../json/own-property.js';
import { GROUP_ROLES, PERSON_ROLES } from '../../source-apis/posthog-people-queries.js';

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
    const renamed = MIXPANEL_PROFILE_RENAMES[key];
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

/** A user profile as a users-file line: an update of its distinct id at `$last_seen`, else at `readIso`. */
export function profileUserLine(record: unknown, readIso: string): string {
  const { distinctId, properties } = readProfile(record);
  const line = { [PERSON_ROLES.distinct_id]: distinctId ?? null, [PERSON_ROLES.timestamp]: lastSeenIso(properties.$last_seen) ?? readIso, $set: profileProperties(properties) };
  return `${JSON.stringify(line)}\n`;
}

/** A group profile as a groups-file line: its key is the profile's `$distinct_id`, its properties the group's. */
export function profileGroupLine(record: unknown, readIso: string): string {
  const { distinctId, properties } = readProfile(record);
  const line = profileProperties(properties);
  setOwnProperty(line, GROUP_ROLES.group_key, distinctId ?? null);
  setOwnProperty(line, GROUP_ROLES.timestamp, lastSeenIso(properties.$last_seen) ?? readIso);
  return `${JSON.stringify(line)}\n`;
}
