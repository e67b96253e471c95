import type { Database, Migration } from '../sqlite/database.js';

/**
 * The staging file's schema, one entry per version (`PRAGMA user_version`). Append, never
 * edit: a user's half-finished migration may be in a file made by an older version.
 */
export const MIGRATIONS: readonly Migration[] = [
  /* v1: sources, staged events, rejects, and room for per-project delivery records. */ `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

  -- One row per source file path; each run over it is a read.
  CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    format TEXT NOT NULL
  );

  CREATE TABLE source_reads (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id),
    command TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('reading', 'done', 'failed')),
    size_bytes INTEGER NOT NULL,
    fingerprint TEXT,
    options TEXT NOT NULL DEFAULT '{}',
    rows_read INTEGER NOT NULL DEFAULT 0,
    rows_staged INTEGER NOT NULL DEFAULT 0,
    rows_already_staged INTEGER NOT NULL DEFAULT 0,
    rows_duplicate INTEGER NOT NULL DEFAULT 0,
    rows_skipped INTEGER NOT NULL DEFAULT 0,
    rows_rejected INTEGER NOT NULL DEFAULT 0,
    rows_recent INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    error TEXT
  );

  -- Exactly what will be sent. seq is the staging order; uuid is 16 raw bytes.
  -- kind: 0 event, 1 person update ($identify), 2 group update ($groupidentify).
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    uuid BLOB NOT NULL UNIQUE,
    kind INTEGER NOT NULL,
    event TEXT NOT NULL,
    distinct_id TEXT NOT NULL,
    timestamp_ms INTEGER NOT NULL,
    properties TEXT NOT NULL,
    read_id INTEGER NOT NULL,
    line INTEGER NOT NULL
  );
  -- Send order: events before person and group updates, each in timestamp order.
  CREATE INDEX events_send_order ON events (kind, timestamp_ms);

  -- Counts kept as rows are staged, so status never scans the events.
  CREATE TABLE event_names (
    kind INTEGER NOT NULL,
    name TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (kind, name)
  ) WITHOUT ROWID;

  CREATE TABLE rejects (
    id INTEGER PRIMARY KEY,
    read_id INTEGER NOT NULL REFERENCES source_reads(id),
    line INTEGER NOT NULL,
    field TEXT NOT NULL,
    reason TEXT NOT NULL,
    message TEXT NOT NULL,
    raw TEXT NOT NULL
  );
  CREATE INDEX rejects_by_read ON rejects (read_id, line);

  -- Delivery: a project is a config name bound to the host it was first sent to.
  CREATE TABLE projects (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    host TEXT NOT NULL,
    created_at TEXT NOT NULL
  );

  -- One row per event a project's server accepted (2xx).
  CREATE TABLE deliveries (
    project_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (project_id, seq)
  ) WITHOUT ROWID;
  `,
  /* v2: delivery counters, dead letters, import runs (what resume continues). */ `
  -- Kept in the same transaction as the deliveries rows, so status never counts them.
  ALTER TABLE projects ADD COLUMN delivered INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE projects ADD COLUMN dead_letters INTEGER NOT NULL DEFAULT 0;
  UPDATE projects SET delivered = (SELECT count(*) FROM deliveries d WHERE d.project_id = projects.id);

  -- Events a project's server refused for good (400 for that event alone, or 413 alone),
  -- with the server's message. They are not sent again.
  CREATE TABLE dead_letters (
    project_id INTEGER NOT NULL REFERENCES projects(id),
    seq INTEGER NOT NULL,
    run_id INTEGER NOT NULL,
    status INTEGER NOT NULL,
    message TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (project_id, seq)
  ) WITHOUT ROWID;

  -- One row per import; resume continues the latest one not done. settings holds the delivery
  -- options (numbers only, never a key); skip_test_first records the override of the rule.
  CREATE TABLE import_runs (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id),
    status TEXT NOT NULL CHECK (status IN ('running', 'done', 'stopped', 'interrupted', 'failed', 'superseded')),
    sample INTEGER,
    skip_test_first INTEGER NOT NULL DEFAULT 0,
    settings TEXT NOT NULL,
    config_path TEXT,
    delivered INTEGER NOT NULL DEFAULT 0,
    dead_letters INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT,
    stop_reason TEXT
  );
  CREATE INDEX import_runs_by_project ON import_runs (project_id, id);
  `,
  /*
   * v3: events.properties holds SQLite JSONB (binary JSON) for rows staged from this version on;
   * rows staged before stay text. `json(properties)` reads both as the staged text. No table
   * changes: the version tells an older migrate that it cannot read this file.
   */ `
  SELECT 1;
  `,
  /*
   * v4: preflights, one row per preflight of a project (migrate doctor run by import before the
   * project's first chunk): its outcome, counts and checks (JSON, redacted), or the recorded
   * --skip-preflight.
   */ `
  CREATE TABLE preflights (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    host TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('passed', 'failed', 'skipped')),
    problems INTEGER NOT NULL DEFAULT 0,
    warnings INTEGER NOT NULL DEFAULT 0,
    checks TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
  );
  CREATE INDEX preflights_by_project ON preflights (project, id);
  `,
  /* v5: events a project had accepted that `migrate verify --resend-missing` found missing and made pending again. */ `
  -- One row per event and re-send: which import run re-sent it, and when it was re-queued. The
  -- deliveries row of the event is removed in the same transaction, so it is pending again.
  CREATE TABLE requeued_events (
    project_id INTEGER NOT NULL REFERENCES projects(id),
    seq INTEGER NOT NULL,
    run_id INTEGER NOT NULL REFERENCES import_runs(id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (project_id, seq, run_id)
  ) WITHOUT ROWID;
  `,
  /* v6: dead letters sent again, each with the run that released it and why. */ `
  -- A dead letter is released (deleted from dead_letters, so it is pending again) by
  -- import --retry-dead-letters, or when the project's host is corrected before it accepted
  -- anything. The row it had is kept here with the run that released it.
  CREATE TABLE released_dead_letters (
    project_id INTEGER NOT NULL REFERENCES projects(id),
    seq INTEGER NOT NULL,
    run_id INTEGER NOT NULL,
    status INTEGER NOT NULL,
    message TEXT NOT NULL,
    created_at TEXT NOT NULL,
    released_by_run INTEGER NOT NULL REFERENCES import_runs(id),
    released_at TEXT NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('retry', 'host-changed'))
  );
  CREATE INDEX released_dead_letters_by_run ON released_dead_letters (released_by_run);
  ALTER TABLE import_runs ADD COLUMN dead_letters_released INTEGER NOT NULL DEFAULT 0;
  `,
  /* v7: reads resumable piece by piece, rows withdrawn from a changed file, zone-read rows keyed. */ `
  -- Where a read got to: the end of its last written piece, in UTF-16 units of the decoded text,
  -- the line after it and the SHA-256 of that text; and the CSV header, to read on from there.
  ALTER TABLE source_reads ADD COLUMN progress_chars INTEGER;
  ALTER TABLE source_reads ADD COLUMN progress_line INTEGER;
  ALTER TABLE source_reads ADD COLUMN progress_fingerprint TEXT;
  ALTER TABLE source_reads ADD COLUMN header TEXT;
  -- Rows this read withdrew (rows of earlier reads of its file gone from it, or replaced).
  ALTER TABLE source_reads ADD COLUMN rows_withdrawn INTEGER NOT NULL DEFAULT 0;
  -- A read left partial and given up for a later one (its file or options changed); its rows stay.
  ALTER TABLE source_reads ADD COLUMN superseded_by INTEGER;

  -- While a file read before is read again: the rows of its earlier reads this read met again,
  -- so the rows gone from the file are known at its end. Emptied when the read completes.
  CREATE TABLE read_seen (
    read_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (read_id, seq)
  ) WITHOUT ROWID;

  -- Events taken out of the send set, as they were, with the projects that had received them.
  CREATE TABLE withdrawn_events (
    id INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL,
    uuid BLOB NOT NULL,
    kind INTEGER NOT NULL,
    event TEXT NOT NULL,
    distinct_id TEXT NOT NULL,
    timestamp_ms INTEGER NOT NULL,
    properties TEXT NOT NULL,
    read_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    withdrawn_by INTEGER NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('gone', 'replaced', 'undone')),
    delivered_to TEXT NOT NULL DEFAULT '[]',
    withdrawn_at TEXT NOT NULL
  );
  CREATE INDEX withdrawn_by_read ON withdrawn_events (read_id);

  -- Rows whose time an option interpreted (a time without a zone read with --timezone, a
  -- Mixpanel project zone): a key of the row as the source wrote it, and the uuid it was staged
  -- with. The same key with another uuid is the same row read with another time zone.
  CREATE TABLE zoned_rows (
    key BLOB PRIMARY KEY,
    uuid BLOB NOT NULL
  ) WITHOUT ROWID;
  `,
  /*
   * v8: the range ledger of export-source --from mixpanel-api / amplitude-api. One row per day
   * (Mixpanel) or hour range (Amplitude) of a source API: pending, being fetched, done, empty
   * (the API had no data there) or failed, with its attempts, counts and last error (redacted).
   * A range's rows are the reads whose path is the range's name (or starts with it and '!').
   * origin: 'plan' for a range cut from the window (cut again as answers come), 'split' for a
   * half of a range refused as too large (kept as it is until fetched).
   */ `
  CREATE TABLE source_ranges (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    range_start TEXT NOT NULL,
    range_end TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'fetching', 'done', 'empty', 'failed')),
    origin TEXT NOT NULL DEFAULT 'plan' CHECK (origin IN ('plan', 'split')),
    attempts INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    rows_read INTEGER NOT NULL DEFAULT 0,
    rows_staged INTEGER NOT NULL DEFAULT 0,
    rows_rejected INTEGER NOT NULL DEFAULT 0,
    options TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    created_at TEXT NOT NULL,
    requested_at TEXT,
    finished_at TEXT,
    UNIQUE (source, range_start, range_end)
  );
  `,
  /*
   * v9: what PostHog's ingestion rules need to know about the staged rows, counted as rows are
   * staged so that status, doctor and import never scan the events: property types, group
   * types, distinct_ids PostHog will not merge on, distinct_ids whose events carry their own
   * $set, and counters (such as $set_once nulls dropped).
   */ `
  -- Per top-level event property, how many staged events hold a value of each JSON type, and
  -- the first (read, line) of each. PostHog fixes a property's type from the first value it sees.
  CREATE TABLE property_types (
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    count INTEGER NOT NULL,
    first_read INTEGER NOT NULL,
    first_line INTEGER NOT NULL,
    PRIMARY KEY (name, type)
  ) WITHOUT ROWID;

  -- Group types used ($groups keys of events, $group_type of group updates): at most 5 per project.
  CREATE TABLE group_types (
    type TEXT PRIMARY KEY,
    count INTEGER NOT NULL,
    first_read INTEGER NOT NULL,
    first_line INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- Events whose distinct_id PostHog refuses to merge on: all of them become one person.
  CREATE TABLE illegal_ids (
    distinct_id TEXT PRIMARY KEY,
    count INTEGER NOT NULL,
    first_read INTEGER NOT NULL,
    first_line INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- distinct_ids of events (kind 0) that carry their own $set: their persons' users-file values
  -- are sent again after the events (kind 3 rows, made by import).
  CREATE TABLE set_ids (distinct_id TEXT PRIMARY KEY) WITHOUT ROWID;

  -- Counters of rules applied while staging (e.g. set_once_nulls: null $set_once values dropped).
  CREATE TABLE rule_counts (key TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
  `,
  /*
   * v10: notes per read; what the passes after staging work from and decided: identity links
   * (users seen with each device), group updates (group properties seen on events), sessions
   * (events given a computed session id), and where the passes got to.
   */ `
  -- Things done to rows that staged, counted for the summary (an Amplitude time taken from
  -- client_event_time, a group type with several keys...), with a few examples.
  CREATE TABLE read_notes (
    read_id INTEGER NOT NULL,
    code TEXT NOT NULL,
    count INTEGER NOT NULL,
    examples TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (read_id, code)
  ) WITHOUT ROWID;

  -- Where the passes got to: rows above seq not looked at yet; withdrawals and failed reads
  -- counted then (more since means rows were taken out); the settings they ran with and what
  -- they found (JSON). One row, name 'passes'.
  CREATE TABLE pass_state (
    name TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    withdrawn_id INTEGER NOT NULL,
    failed_reads INTEGER NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}',
    summary TEXT NOT NULL DEFAULT '{}'
  ) WITHOUT ROWID;

  -- Identity links: each device (as the anonymous distinct_id its events carry) with each user
  -- seen on it, and the first time they were seen together.
  CREATE TABLE identity_pairs (
    device TEXT NOT NULL,
    user TEXT NOT NULL,
    first_ms INTEGER NOT NULL,
    PRIMARY KEY (device, user)
  ) WITHOUT ROWID;
  -- Devices whose link the next pass decides again: any whose users or first times changed.
  CREATE TABLE identity_dirty (device TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TRIGGER identity_pair_added AFTER INSERT ON identity_pairs BEGIN INSERT OR IGNORE INTO identity_dirty (device) VALUES (new.device); END;
  CREATE TRIGGER identity_pair_moved AFTER UPDATE ON identity_pairs BEGIN INSERT OR IGNORE INTO identity_dirty (device) VALUES (new.device); END;
  CREATE TRIGGER identity_pair_gone AFTER DELETE ON identity_pairs BEGIN INSERT OR IGNORE INTO identity_dirty (device) VALUES (old.device); END;
  -- What was decided per device, and the link staged for it ($identify, kind 1), if any.
  CREATE TABLE identity_devices (
    device TEXT PRIMARY KEY,
    users INTEGER NOT NULL,
    first_user TEXT,
    decision TEXT NOT NULL CHECK (decision IN ('linked', 'placeholder', 'illegal_user', 'kiosk', 'gone')),
    link_user TEXT,
    link_uuid BLOB,
    link_ms INTEGER,
    -- 1: the staged link was delivered and is no longer what the file says (kept: PostHog keeps it).
    kept_delivered INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;

  -- Group properties seen on events: per group, the version each event carried (only the first
  -- and last of a version per piece of a file), while that event is staged.
  CREATE TABLE group_versions (version BLOB PRIMARY KEY, properties TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE group_observations (
    type TEXT NOT NULL,
    key TEXT NOT NULL,
    timestamp_ms INTEGER NOT NULL,
    uuid BLOB NOT NULL,
    version BLOB NOT NULL,
    PRIMARY KEY (type, key, timestamp_ms, uuid)
  ) WITHOUT ROWID;
  CREATE TABLE group_dirty (type TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (type, key)) WITHOUT ROWID;
  -- Each group type and when it was first seen: PostHog keeps five types per project.
  CREATE TABLE observed_group_types (type TEXT PRIMARY KEY, first_ms INTEGER NOT NULL) WITHOUT ROWID;
  -- The $groupidentify rows (kind 2) staged from them: one per change of version, in time order.
  CREATE TABLE group_updates (
    type TEXT NOT NULL,
    key TEXT NOT NULL,
    uuid BLOB NOT NULL,
    timestamp_ms INTEGER NOT NULL,
    version BLOB NOT NULL,
    kept_delivered INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (type, key, uuid)
  ) WITHOUT ROWID;

  -- --sessionize: the events given a computed session id, by distinct_id and time, and the start
  -- of the session they have now (null until the pass gives them one).
  CREATE TABLE session_events (
    distinct_id TEXT NOT NULL,
    timestamp_ms INTEGER NOT NULL,
    uuid BLOB NOT NULL,
    session_start_ms INTEGER,
    PRIMARY KEY (distinct_id, timestamp_ms, uuid)
  ) WITHOUT ROWID;
  CREATE TABLE session_dirty (distinct_id TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TRIGGER session_event_added AFTER INSERT ON session_events BEGIN INSERT OR IGNORE INTO session_dirty (distinct_id) VALUES (new.distinct_id); END;
  `,
  /*
   * v11: why rows were skipped, and the events a --transform made beyond one per row. skipped_by
   * is a JSON object of counts by reason ('map', '--only-events', '--skip-events', '--since',
   * '--until', 'transform <file name>'); it adds up to rows_skipped (a read from before this
   * version has '{}': its skipped rows were mapped to null). With rows_added, every read has
   * rows_read + rows_added = staged + already staged + duplicates + skipped + rejected.
   */ `
  ALTER TABLE source_reads ADD COLUMN skipped_by TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE source_reads ADD COLUMN rows_added INTEGER NOT NULL DEFAULT 0;
  `,
  /*
   * v12: the triggers that mark a device (or a person, for sessions) to be decided again test
   * for the mark instead of relying on INSERT OR IGNORE. SQLite runs a trigger's statements
   * under the conflict policy of the statement that fired it when that one has its own, and an
   * upsert's DO UPDATE always has ABORT: a file whose pairs met earlier than the pairs already
   * staged marked the same device twice and stopped the identity pass (UNIQUE constraint failed).
   */ `
  DROP TRIGGER identity_pair_added;
  DROP TRIGGER identity_pair_moved;
  DROP TRIGGER identity_pair_gone;
  DROP TRIGGER session_event_added;
  CREATE TRIGGER identity_pair_added AFTER INSERT ON identity_pairs
    BEGIN INSERT INTO identity_dirty (device) SELECT new.device WHERE NOT EXISTS (SELECT 1 FROM identity_dirty WHERE device = new.device); END;
  CREATE TRIGGER identity_pair_moved AFTER UPDATE ON identity_pairs
    BEGIN INSERT INTO identity_dirty (device) SELECT new.device WHERE NOT EXISTS (SELECT 1 FROM identity_dirty WHERE device = new.device); END;
  CREATE TRIGGER identity_pair_gone AFTER DELETE ON identity_pairs
    BEGIN INSERT INTO identity_dirty (device) SELECT old.device WHERE NOT EXISTS (SELECT 1 FROM identity_dirty WHERE device = old.device); END;
  CREATE TRIGGER session_event_added AFTER INSERT ON session_events
    BEGIN INSERT INTO session_dirty (distinct_id) SELECT new.distinct_id WHERE NOT EXISTS (SELECT 1 FROM session_dirty WHERE distinct_id = new.distinct_id); END;
  `,
  /*
   * v13: the objects of s3:// and gs:// sources as each run listed them: the address (the path
   * its reads are recorded under; a zip object's entries under `<url>!<entry>`), bucket, key,
   * size and ETag. status counts them done, partial and not yet read per prefix. version_id is
   * for versioned buckets (listings do not give it: the object's first read does).
   */ `
  CREATE TABLE bucket_objects (
    url TEXT PRIMARY KEY,
    bucket TEXT NOT NULL,
    key TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    etag TEXT NOT NULL,
    version_id TEXT,
    listed_at TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  /*
   * v14: where a read of a plain UTF-8 bucket object stands in the object's bytes (after its
   * byte-order mark), and the ETag the object had when the read began: the next run resumes it
   * with a ranged read from there, only while the object still has that ETag.
   */ `
  ALTER TABLE source_reads ADD COLUMN progress_bytes INTEGER;
  ALTER TABLE source_reads ADD COLUMN source_etag TEXT;
  `,
  /*
   * v15: the persons of PostHog batch exports staged so far, folded by version: for each
   * distinct id the row that says its person (kind 0), for each person the row that gives its
   * state (kind 1), each row as JSON. A run that reads persons files folds them into these, so
   * exports staged by separate runs give the persons one run over all of them gives.
   */ `
  CREATE TABLE export_person_rows (
    kind INTEGER NOT NULL,
    key TEXT NOT NULL,
    row TEXT NOT NULL,
    PRIMARY KEY (kind, key)
  ) WITHOUT ROWID;
  `,
  /*
   * v16: events' properties compressed in blocks of up to 256 rows (see property-blocks.ts):
   * a staged row's properties column holds a 9-byte reference to its row of a block. Rows
   * staged before stay as they are (text or JSONB) and are read as before: the upgrade rewrites
   * nothing, so a file of any size upgrades at once, mid-import included; only the rows staged
   * from now on take less room. A row changed after staging (a session id, a stamp) is written
   * back unpacked, as JSONB.
   */ `
  CREATE TABLE property_blocks (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
  `,
  /*
   * v17: the identity pairs of rows staged since the links pass last ran, recorded by the
   * writer with the rows (see identity-new-pairs.ts), appended without an index; the pass
   * merges them sorted by device and empties the table. Rows staged before this version have
   * no recorded pairs: the mark makes the next pass draw theirs with one scan, as before.
   */ `
  CREATE TABLE identity_new_pairs (read_id INTEGER NOT NULL, device TEXT NOT NULL, user TEXT NOT NULL, first_ms INTEGER NOT NULL);
  INSERT INTO meta (key, value) SELECT 'identity_pairs_scan', '1' WHERE EXISTS (SELECT 1 FROM events);
  `,
  /*
   * v18: which uuid is staged as which row moves out of events into its own tables (see
   * uuid-keys.ts): uuid_recent, the uuids staged since the last merge; uuid_merged, where each
   * merge puts them in key order; uuid_keys, where uuid_merged goes in key order once it has
   * grown enough; uuid_key_counts, their sizes as merged (for when to merge). A file with no
   * events yet gets an events table without the uniqueness on uuid (and so without its index);
   * a file with events keeps its table (dropping the constraint would copy every row) and its
   * mapping is filled from the old index in key order. Its UNIQUE stays, a safety net the
   * writer never hits.
   */
  uuidKeysMigration,
  /*
   * v19: Heap sessions whose start the event rows do not carry (see staging/heap-session-store.ts):
   * each Heap event row with a session_id and no $session_id, by user, session and time; the
   * start each session's rows carry now; the sessions to work out again.
   */ `
  CREATE TABLE heap_session_rows (user TEXT NOT NULL, session TEXT NOT NULL, timestamp_ms INTEGER NOT NULL, uuid BLOB NOT NULL, PRIMARY KEY (user, session, timestamp_ms, uuid)) WITHOUT ROWID;
  CREATE TABLE heap_sessions (user TEXT NOT NULL, session TEXT NOT NULL, start_ms INTEGER NOT NULL, PRIMARY KEY (user, session)) WITHOUT ROWID;
  CREATE TABLE heap_session_dirty (user TEXT NOT NULL, session TEXT NOT NULL, PRIMARY KEY (user, session)) WITHOUT ROWID;
  CREATE TRIGGER heap_session_row_added AFTER INSERT ON heap_session_rows BEGIN
    INSERT INTO heap_session_dirty (user, session) SELECT new.user, new.session
      WHERE NOT EXISTS (SELECT 1 FROM heap_session_dirty WHERE user = new.user AND session = new.session);
  END;
  `,
  /*
   * v20: the microseconds past each event's millisecond (0-999), for sources that give them
   * (PostHog keeps microseconds). timestamp_ms stays the time rows are ordered and counted by;
   * rows staged before this version have none (0), as they were staged.
   */ `
  ALTER TABLE events ADD COLUMN sub_ms_us INTEGER NOT NULL DEFAULT 0;
  `,
  /*
   * v21: the store each bucket object was listed at (see buckets/bucket-settings.ts
   * endpointIdentity): the same key at another endpoint is another object. Objects listed
   * before it was kept have none, and take the endpoint of their next listing. And what a
   * completed read's source was (sources/file-identity.ts): a file's size, time, inode and
   * edges, an object's endpoint, size and ETag; a source that has them still is not read
   * again (see staging/unchanged-reads.ts). Reads before have none, and are read again once.
   */ `
  ALTER TABLE bucket_objects ADD COLUMN endpoint TEXT;
  ALTER TABLE source_reads ADD COLUMN source_identity TEXT;
  `,
  /* v22: what each import run's pace came to (average events/s, requests, those refused for load, time waiting to retry), for status. */ `
  ALTER TABLE import_runs ADD COLUMN pace TEXT;
  `,
];

function uuidKeysMigration(db: Database): void {
  db.exec(`
  CREATE TABLE uuid_keys (uuid BLOB PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE uuid_merged (uuid BLOB PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE uuid_recent (uuid BLOB PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
  CREATE VIEW event_uuids AS
    SELECT uuid, seq FROM uuid_keys UNION ALL SELECT uuid, seq FROM uuid_merged UNION ALL SELECT uuid, seq FROM uuid_recent;
  CREATE TABLE uuid_key_counts (merged_rows INTEGER NOT NULL, keys_rows INTEGER NOT NULL);
  INSERT INTO uuid_key_counts VALUES (0, 0);
  `);
  const empty = db.prepare('SELECT NOT EXISTS (SELECT 1 FROM events)').pluck().get() === 1;
  if (empty) {
    db.exec(`
    DROP TABLE events;
    CREATE TABLE events (
      seq INTEGER PRIMARY KEY,
      uuid BLOB NOT NULL,
      kind INTEGER NOT NULL,
      event TEXT NOT NULL,
      distinct_id TEXT NOT NULL,
      timestamp_ms INTEGER NOT NULL,
      properties TEXT NOT NULL,
      read_id INTEGER NOT NULL,
      line INTEGER NOT NULL
    );
    CREATE INDEX events_send_order ON events (kind, timestamp_ms);
    `);
  } else {
    const rows = db.prepare('INSERT INTO uuid_keys (uuid, seq) SELECT uuid, seq FROM events ORDER BY uuid').run().changes;
    db.prepare('UPDATE uuid_key_counts SET keys_rows = ?').run(rows);
  }
  db.exec(`
  CREATE TRIGGER event_uuid_gone AFTER DELETE ON events BEGIN
    DELETE FROM uuid_recent WHERE uuid = old.uuid;
    DELETE FROM uuid_merged WHERE uuid = old.uuid;
    DELETE FROM uuid_keys WHERE uuid = old.uuid;
  END;
  `);
}

/** Written to the SQLite header so a staging file can be told from any other database. */
export const STAGING_APPLICATION_ID = 0x4d494752; // "MIGR"
