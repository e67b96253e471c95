/**
 * The tables the sandbox's HogQL reads, as PostHog's HogQL database names them: `events`,
 * `persons`, `person_distinct_ids`, their raw tables and `groups`. Each is one SQLite row source aliased
 * `events` (so every compiled expression reads `events.<column>`), with the columns HogQL
 * shows and the ClickHouse types PostHog reports. Pure.
 */
import type { ValueKind } from './hogql-ast.js';
import { millisecondColumnAsTime } from './hogql-literals.js';

export interface ColumnDef {
  sql: string;
  kind: ValueKind;
  type: string;
}

export interface TableDef {
  /** The row source, aliased `events`, with a `team_id` and an `id` (the default order). */
  from: string;
  columns: Readonly<Record<string, ColumnDef>>;
  /** Names PostHog's table has and the sandbox does not: refused as unsupported, not unknown. */
  missing: readonly string[];
  /** Whether `properties.x` reads this table's JSON properties. */
  properties: boolean;
  /**
   * PostHog defines the table as an aggregation (argMax over version) of the whole raw table,
   * whatever the WHERE: a query over it reads every row of the project's raw table.
   */
  wholeTable?: boolean;
}

export const DATETIME = "DateTime64(6, 'UTC')";
const time = (column: string): ColumnDef => ({ sql: millisecondColumnAsTime(`events.${column}`), kind: 'datetime', type: DATETIME });
const text = (column: string, type = 'String'): ColumnDef => ({ sql: `events.${column}`, kind: 'text', type });
/** The sandbox numbers its persons; PostHog gives them UUIDs: the number written as one, in the same order. */
const personUuid = (column: string): ColumnDef => ({ sql: `printf('00000000-0000-4000-8000-%012d', events.${column})`, kind: 'uuid', type: 'UUID' });

const EVENTS: TableDef = {
  from: 'events',
  columns: {
    uuid: { sql: 'lower(events.uuid)', kind: 'uuid', type: 'UUID' },
    event: text('event'),
    distinct_id: text('distinct_id'),
    // Stored in the query form already, to the microsecond (see stored-time.ts).
    timestamp: { sql: 'events.timestamp', kind: 'datetime', type: DATETIME },
    properties: text('properties'),
    // The sandbox keeps the chain where capture received it: in the properties.
    elements_chain: { sql: `coalesce(json_extract(events.properties, '$."$elements_chain"'), '')`, kind: 'text', type: 'String' },
  },
  missing: ['person_id', 'person', 'pdi', 'person_properties', 'created_at', '$session_id', '$window_id', 'session', 'team_id', 'group_0', 'group_1', 'group_2', 'group_3', 'group_4'],
  properties: true,
};

const PERSONS: TableDef = {
  from: '(SELECT id, team_id, properties, created_at, is_identified FROM persons) AS events',
  columns: {
    id: personUuid('id'),
    properties: text('properties'),
    created_at: time('created_at'),
    is_identified: { sql: 'events.is_identified', kind: 'number', type: 'Bool' },
  },
  missing: ['pdi', 'team_id'],
  properties: true,
  wholeTable: true,
};

/**
 * The sandbox keeps each person's last version only (a merge deletes the old person), so its
 * raw table holds version 0 of each live person and no deleted rows; argMax over version and
 * HAVING on is_deleted answer as over PostHog's raw table.
 */
const RAW_PERSONS: TableDef = {
  ...PERSONS,
  columns: { ...PERSONS.columns, version: { sql: '0', kind: 'number', type: 'Int64' }, is_deleted: { sql: '0', kind: 'number', type: 'Int8' } },
  wholeTable: false,
};

const PERSON_DISTINCT_IDS: TableDef = {
  from: '(SELECT person_id AS id, team_id, distinct_id, person_id FROM person_distinct_ids) AS events',
  columns: { distinct_id: text('distinct_id'), person_id: personUuid('person_id') },
  missing: ['person', 'team_id'],
  properties: false,
  wholeTable: true,
};

const RAW_PERSON_DISTINCT_IDS: TableDef = {
  ...PERSON_DISTINCT_IDS,
  columns: { ...PERSON_DISTINCT_IDS.columns, version: { sql: '0', kind: 'number', type: 'Int64' }, is_deleted: { sql: '0', kind: 'number', type: 'Int8' } },
  wholeTable: false,
};

const GROUPS: TableDef = {
  from: '(SELECT id, team_id, group_type_index, group_key, group_properties AS properties, created_at FROM groups) AS events',
  columns: {
    index: { sql: 'events.group_type_index', kind: 'number', type: 'Int64' },
    key: text('group_key'),
    properties: text('properties'),
    created_at: time('created_at'),
  },
  missing: ['team_id', 'updated_at'],
  properties: true,
};

export const HOGQL_TABLES: Readonly<Record<string, TableDef>> = {
  events: EVENTS,
  persons: PERSONS,
  person_distinct_ids: PERSON_DISTINCT_IDS,
  raw_persons: RAW_PERSONS,
  raw_person_distinct_ids: RAW_PERSON_DISTINCT_IDS,
  groups: GROUPS,
};

/** PostHog tables the sandbox does not have, refused as unsupported rather than unknown. */
export const POSTHOG_ONLY_TABLES = ['sessions', 'session_replay_events', 'cohort_people', 'static_cohort_people', 'log_entries', 'numbers', 'raw_groups'];
