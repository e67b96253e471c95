/**
 * Persons and groups of a PostHog project, read through HogQL and written as the users and
 * groups files `identify-users` and `identify-groups` read (JSON lines). Groups are counted,
 * then paged by their key (never OFFSET); persons are read by key ranges of their distinct ids. A person becomes one update of its properties on one
 * of its distinct ids, and one link from that id to each other one, so persons merged in the
 * source stay one person. Roles are read from names no property is likely to have. Pure.
 */
import { isIllegalDistinctId } from '../events/illegal-distinct-id.js';
import { printHogQLString } from './hogql-text.js';
import { toUtcExact } from './posthog-time.js';
import type { KeyRange } from './key-range.js';

/** The users and groups files' role columns, renamed out of the way of any property. */
export const PERSON_ROLES = { distinct_id: '$migrate_distinct_id', anon_distinct_id: '$migrate_anon_distinct_id', timestamp: '$migrate_timestamp', uuid: '$migrate_uuid' } as const;
export const GROUP_ROLES = { group_key: '$migrate_group_key', timestamp: '$migrate_timestamp', uuid: '$migrate_uuid' } as const;

export interface PeopleTable {
  /** The HogQL table. */
  table: 'groups';
  columns: readonly string[];
  /** The key pages are ordered and cut by, in order. */
  key: readonly string[];
  /** How each key column is written as a literal (numbers bare). */
  numeric?: readonly string[];
  where?: string;
}

export const groupsOf = (index: number): PeopleTable => ({ table: 'groups', columns: ['key', 'properties', 'created_at'], key: ['key'], where: `index = ${index}` });

function literal(value: unknown): string {
  return typeof value === 'number' ? String(value) : printHogQLString(String(value));
}

/** `(a, b) > (x, y)` spelled out: `a > x OR (a = x AND b > y)`. */
function after(key: readonly string[], values: readonly unknown[]): string {
  const [first, ...rest] = key;
  const here = `${first} > ${literal(values[0])}`;
  if (rest.length === 0) return here;
  return `(${here} OR (${first} = ${literal(values[0])} AND ${after(rest, values.slice(1))}))`;
}

export function countQuery(t: PeopleTable): string {
  return `SELECT count() FROM ${t.table}${t.where === undefined ? '' : ` WHERE ${t.where}`}`;
}

/** A page after the key values `cursor` (the last row's), in key order. */
export function pageQuery(t: PeopleTable, cursor: readonly unknown[] | undefined, limit: number): string {
  const conditions = [...(t.where === undefined ? [] : [t.where]), ...(cursor === undefined ? [] : [after(t.key, cursor)])];
  const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
  return `SELECT ${t.columns.join(', ')} FROM ${t.table}${where} ORDER BY ${t.key.map((k) => `${k} ASC`).join(', ')} LIMIT ${limit}`;
}

/**
 * PostHog's `persons` and `person_distinct_ids` aggregate their whole raw table (argMax over
 * version) whatever the WHERE, so on a large project any query over them runs out of time.
 * The distinct ids are read from the raw table a key range at a time instead, the aggregation
 * done inside the range: a distinct id's rows all share its key, so its last version is there.
 */
const LIVE = 'HAVING argMax(is_deleted, version) = 0';

function rangeWhere(range: KeyRange, cursor?: string): string {
  const conditions = [
    ...(range.from === undefined ? [] : [`distinct_id >= ${literal(range.from)}`]),
    ...(range.to === undefined ? [] : [`distinct_id < ${literal(range.to)}`]),
    ...(cursor === undefined ? [] : [`distinct_id > ${literal(cursor)}`]),
  ];
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}

/** The live distinct ids of a key range, counted. */
export function distinctIdCountQuery(range: KeyRange): string {
  return `SELECT count() FROM (SELECT distinct_id FROM raw_person_distinct_ids${rangeWhere(range)} GROUP BY distinct_id ${LIVE})`;
}

/** A page of a key range's live distinct ids after `cursor`, each with its person: rows `[distinct_id, person_id]`. */
export function distinctIdPageQuery(range: KeyRange, cursor: string | undefined, limit: number): string {
  return `SELECT distinct_id, argMax(person_id, version) FROM raw_person_distinct_ids${rangeWhere(range, cursor)} GROUP BY distinct_id ${LIVE} ORDER BY distinct_id ASC LIMIT ${limit}`;
}

/** The persons of the given ids, each as its last version (rows `[id, properties, created_at]`); deleted ones left out. */
export function personsByIdQuery(ids: readonly string[]): string {
  return `SELECT id, argMax(properties, version), argMax(created_at, version) FROM raw_persons WHERE id IN (${ids.map(literal).join(', ')}) GROUP BY id ${LIVE} ORDER BY id ASC LIMIT ${ids.length}`;
}

/** The key values of an answered row, for the next page. */
export function cursorOf(t: PeopleTable, row: readonly unknown[]): unknown[] {
  return t.key.map((k) => row[t.columns.indexOf(k)]);
}

function propertiesOf(value: unknown): Record<string, unknown> | string {
  if (typeof value !== 'string') return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  return value;
}

/** JSON text kept as text inside the line, so big numbers keep their digits: spliced, not re-encoded. */
function withProperties(record: Record<string, unknown>, field: string, properties: Record<string, unknown> | string): string {
  const head = JSON.stringify(record);
  const text = typeof properties === 'string' ? (properties.trim() === '' ? '{}' : properties) : JSON.stringify(properties);
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}${JSON.stringify(field)}:${text}}\n`;
}

/**
 * A person's lines: its properties set on its first distinct id (the first PostHog merges on,
 * when one is), then each other id linked to it. A person without a distinct id cannot be
 * addressed, so has none.
 */
export function personLines(row: readonly unknown[], distinctIds: readonly string[], timezone: string): string[] {
  const [, properties, createdAt] = row;
  if (distinctIds.length === 0) return [];
  const sorted = [...distinctIds].sort();
  const main = sorted.find((id) => !isIllegalDistinctId(id)) ?? sorted[0]!;
  const others = sorted.filter((id) => id !== main);
  const timestamp = typeof createdAt === 'string' ? toUtcExact(createdAt, timezone) : undefined;
  const base = { [PERSON_ROLES.distinct_id]: main, ...(timestamp === undefined ? {} : { [PERSON_ROLES.timestamp]: timestamp }) };
  return [withProperties(base, '$set', propertiesOf(properties)), ...others.map((other) => `${JSON.stringify({ ...base, [PERSON_ROLES.anon_distinct_id]: other, $set: {} })}\n`)];
}

/** A group's line: its key, its properties as they are (each one a top-level field, as groups files have them). */
export function groupLine(row: readonly unknown[], timezone: string): string {
  const [key, properties, createdAt] = row;
  const timestamp = typeof createdAt === 'string' ? toUtcExact(createdAt, timezone) : undefined;
  const props = propertiesOf(properties);
  const parsed = typeof props === 'string' ? props : JSON.stringify(props);
  // The properties object's members, then the roles: spliced so the values stay as PostHog wrote them.
  const roles = JSON.stringify({ [GROUP_ROLES.group_key]: String(key), ...(timestamp === undefined ? {} : { [GROUP_ROLES.timestamp]: timestamp }) }).slice(1);
  const body = parsed.trim().replace(/}\s*$/, '');
  return `${body}${/^\{\s*$/.test(body) ? '' : ','}${roles}\n`;
}
