/**
 * The sandbox's own SQLite store: what a PostHog project would hold after ingestion, kept
 * simple enough to inspect. Append migrations, never edit them.
 */
export const SANDBOX_MIGRATIONS: readonly string[] = [
  /* v1: projects, ingested events, persons, groups. */ `
  CREATE TABLE projects (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    api_token TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL,
    timezone TEXT NOT NULL DEFAULT 'UTC',
    created_at TEXT NOT NULL
  );

  -- Every accepted event, duplicates included (as ClickHouse holds them before a merge), so a
  -- rehearsal can show whether anything was sent twice.
  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    uuid TEXT NOT NULL,
    event TEXT NOT NULL,
    distinct_id TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    properties TEXT NOT NULL,
    historical_migration INTEGER NOT NULL,
    endpoint TEXT NOT NULL,
    received_at TEXT NOT NULL
  );
  CREATE INDEX events_by_uuid ON events (team_id, uuid);
  CREATE INDEX events_by_time ON events (team_id, timestamp);

  CREATE TABLE persons (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    properties TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
  );
  CREATE TABLE person_distinct_ids (
    team_id INTEGER NOT NULL,
    distinct_id TEXT NOT NULL,
    person_id INTEGER NOT NULL REFERENCES persons(id),
    PRIMARY KEY (team_id, distinct_id)
  ) WITHOUT ROWID;

  CREATE TABLE group_types (
    team_id INTEGER NOT NULL,
    group_type TEXT NOT NULL,
    group_type_index INTEGER NOT NULL,
    name_singular TEXT,
    name_plural TEXT,
    PRIMARY KEY (team_id, group_type_index),
    UNIQUE (team_id, group_type)
  );
  CREATE TABLE groups (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    group_type_index INTEGER NOT NULL,
    group_key TEXT NOT NULL,
    group_properties TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    UNIQUE (team_id, group_type_index, group_key)
  );
  `,
];
