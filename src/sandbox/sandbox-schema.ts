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
  /* v2: the management side: organizations, users, memberships, personal API keys, exports. */ `
  CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    distinct_id TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL UNIQUE
  );
  -- Levels as the service has them: 1 member, 8 administrator, 15 owner.
  CREATE TABLE organization_memberships (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    level INTEGER NOT NULL,
    joined_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (organization_id, user_id)
  );
  -- team_id is a project id; no foreign key, so memberships can be seeded before projects.
  CREATE TABLE explicit_team_memberships (
    id TEXT PRIMARY KEY,
    team_id INTEGER NOT NULL,
    parent_membership_id TEXT NOT NULL REFERENCES organization_memberships(id),
    level INTEGER NOT NULL,
    joined_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (team_id, parent_membership_id)
  );
  -- The plain value is kept so "migrate sandbox" can show the keys of this local server; a
  -- sandbox key opens nothing but this loopback server.
  CREATE TABLE personal_api_keys (
    id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    label TEXT NOT NULL UNIQUE,
    value TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE exports (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    dashboard INTEGER,
    insight INTEGER,
    export_format TEXT NOT NULL,
    export_context TEXT,
    created_by INTEGER REFERENCES users(id),
    created_at TEXT NOT NULL,
    filename TEXT NOT NULL,
    expires_after TEXT,
    content BLOB,
    exception TEXT
  );
  CREATE INDEX exports_by_team ON exports (team_id, created_at);
  CREATE INDEX groups_newest_first ON groups (team_id, group_type_index, created_at);
  `,
  /* v3: notebooks that groups/find/ creates for a group unless told not to (skip_create_notebook). */ `
  CREATE TABLE notebooks (
    id INTEGER PRIMARY KEY,
    short_id TEXT NOT NULL UNIQUE,
    team_id INTEGER NOT NULL,
    title TEXT NOT NULL,
    group_type_index INTEGER NOT NULL,
    group_key TEXT NOT NULL,
    created_by INTEGER REFERENCES users(id),
    created_at TEXT NOT NULL,
    UNIQUE (team_id, group_type_index, group_key)
  );
  `,
  /* v4: ingestion as PostHog models it: persons and groups on events (snapshots taken when the
     event was ingested), identified persons and merges (old person ids resolve through
     person_overrides), ingestion warnings, sessions filed by their UUIDv7 ids. */ `
  ALTER TABLE events ADD COLUMN person_id INTEGER;
  ALTER TABLE events ADD COLUMN person_properties TEXT;
  ALTER TABLE events ADD COLUMN group0_properties TEXT;
  ALTER TABLE events ADD COLUMN group1_properties TEXT;
  ALTER TABLE events ADD COLUMN group2_properties TEXT;
  ALTER TABLE events ADD COLUMN group3_properties TEXT;
  ALTER TABLE events ADD COLUMN group4_properties TEXT;
  ALTER TABLE persons ADD COLUMN is_identified INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX person_distinct_ids_by_person ON person_distinct_ids (person_id);

  -- A merged person's id and the person it became (transitively: always the survivor).
  CREATE TABLE person_overrides (
    team_id INTEGER NOT NULL,
    old_person_id INTEGER NOT NULL,
    override_person_id INTEGER NOT NULL,
    PRIMARY KEY (team_id, old_person_id)
  ) WITHOUT ROWID;

  CREATE TABLE ingestion_warnings (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    type TEXT NOT NULL,
    details TEXT NOT NULL,
    timestamp TEXT NOT NULL
  );

  -- Only sessions whose $session_id is a UUIDv7; session_start is the time in the id.
  CREATE TABLE sessions (
    team_id INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    session_start TEXT NOT NULL,
    distinct_id TEXT NOT NULL,
    first_timestamp TEXT NOT NULL,
    last_timestamp TEXT NOT NULL,
    event_count INTEGER NOT NULL,
    PRIMARY KEY (team_id, session_id)
  ) WITHOUT ROWID;
  `,
  /* v5: the project's configuration objects (actions, cohorts, flags, insights, dashboards and their
     tiles, annotations, experiments, surveys), each a JSON body, and static cohorts' members. */ `
  CREATE TABLE config_objects (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX config_objects_by_kind ON config_objects (team_id, kind, id);

  CREATE TABLE static_cohort_people (
    cohort_id INTEGER NOT NULL,
    person_id INTEGER NOT NULL,
    PRIMARY KEY (cohort_id, person_id)
  ) WITHOUT ROWID;
  `,
  /* v6: event times to the microsecond, as ClickHouse's DateTime64(6): stored with six fraction
     digits (see stored-time.ts), those stored with three before written the same way. */ `
  UPDATE events SET timestamp = substr(timestamp, 1, 23) || '000Z' WHERE length(timestamp) = 24;
  UPDATE sessions SET first_timestamp = substr(first_timestamp, 1, 23) || '000Z' WHERE length(first_timestamp) = 24;
  UPDATE sessions SET last_timestamp = substr(last_timestamp, 1, 23) || '000Z' WHERE length(last_timestamp) = 24;
  `,
];
