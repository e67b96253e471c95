/**
 * Reading what the sandbox's ingestion stored, the way PostHog's queries see it: events with
 * the person they belong to now (old person ids resolved through merges), their person and
 * group snapshots, persons, sessions, ingestion warnings. For tests and the `/_sandbox/`
 * debug routes.
 */
import type { SandboxStore } from '../sandbox-store.js';
import { shownTime } from '../stored-time.js';

type Obj = Record<string, unknown>;

export interface IngestedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  timestamp: string;
  properties: Obj;
  /** The person id stored with the event when it was ingested (null for personless events). */
  personId: number | null;
  /** The person it belongs to now, after merges. */
  currentPersonId: number | null;
  /** The person's properties as they were when the event was ingested. */
  personProperties: Obj;
  /** Group properties by group type index (0 to 4), as they were; null where none is referenced. */
  groupProperties: Array<Obj | null>;
}

export interface IngestedPerson {
  id: number;
  properties: Obj;
  isIdentified: boolean;
  createdAt: string;
  distinctIds: string[];
}

export interface IngestedSession {
  sessionId: string;
  sessionStart: string;
  distinctId: string;
  firstTimestamp: string;
  lastTimestamp: string;
  eventCount: number;
}

export interface IngestionWarning {
  type: string;
  details: Obj;
  timestamp: string;
}

interface EventRow {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: string;
  person_id: number | null;
  current_person_id: number | null;
  person_properties: string | null;
  g0: string | null;
  g1: string | null;
  g2: string | null;
  g3: string | null;
  g4: string | null;
}

const parsed = (text: string | null): Obj | null => (text === null ? null : (JSON.parse(text) as Obj));

/** Every stored event of a project in the order stored, with its current person id. */
export function eventsWithCurrentPerson(store: SandboxStore, teamId: number): IngestedEvent[] {
  const rows = store.db
    .prepare(
      `SELECT e.uuid, e.event, e.distinct_id, e.timestamp, e.properties, e.person_id,
              coalesce(o.override_person_id, e.person_id) AS current_person_id, e.person_properties,
              e.group0_properties AS g0, e.group1_properties AS g1, e.group2_properties AS g2, e.group3_properties AS g3, e.group4_properties AS g4
       FROM events e LEFT JOIN person_overrides o ON o.team_id = e.team_id AND o.old_person_id = e.person_id
       WHERE e.team_id = ? ORDER BY e.id`,
    )
    .all(teamId) as EventRow[];
  return rows.map((r) => ({
    uuid: r.uuid,
    event: r.event,
    distinctId: r.distinct_id,
    timestamp: shownTime(r.timestamp),
    properties: JSON.parse(r.properties) as Obj,
    personId: r.person_id,
    currentPersonId: r.current_person_id,
    personProperties: parsed(r.person_properties) ?? {},
    groupProperties: [r.g0, r.g1, r.g2, r.g3, r.g4].map(parsed),
  }));
}

/** The person a distinct_id belongs to now, with all its distinct_ids. */
export function personOfDistinctId(store: SandboxStore, teamId: number, distinctId: string): IngestedPerson | undefined {
  const row = store.db
    .prepare(
      `SELECT p.id, p.properties, p.is_identified, p.created_at FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
       WHERE d.team_id = ? AND d.distinct_id = ?`,
    )
    .get(teamId, distinctId) as { id: number; properties: string; is_identified: number; created_at: string } | undefined;
  if (row === undefined) return undefined;
  const ids = store.db.prepare('SELECT distinct_id FROM person_distinct_ids WHERE team_id = ? AND person_id = ? ORDER BY distinct_id').all(teamId, row.id) as Array<{ distinct_id: string }>;
  return { id: row.id, properties: JSON.parse(row.properties) as Obj, isIdentified: row.is_identified === 1, createdAt: row.created_at, distinctIds: ids.map((r) => r.distinct_id) };
}

/** The project's sessions (UUIDv7 session ids only), oldest first. */
export function sessionsOf(store: SandboxStore, teamId: number): IngestedSession[] {
  const rows = store.db
    .prepare(
      `SELECT session_id AS sessionId, session_start AS sessionStart, distinct_id AS distinctId, first_timestamp AS firstTimestamp,
              last_timestamp AS lastTimestamp, event_count AS eventCount
       FROM sessions WHERE team_id = ? ORDER BY session_start, session_id`,
    )
    .all(teamId) as IngestedSession[];
  return rows.map((r) => ({ ...r, firstTimestamp: shownTime(r.firstTimestamp), lastTimestamp: shownTime(r.lastTimestamp) }));
}

export function ingestionWarnings(store: SandboxStore, teamId: number): IngestionWarning[] {
  const rows = store.db.prepare('SELECT type, details, timestamp FROM ingestion_warnings WHERE team_id = ? ORDER BY id').all(teamId) as Array<{ type: string; details: string; timestamp: string }>;
  return rows.map((r) => ({ type: r.type, details: JSON.parse(r.details) as Obj, timestamp: r.timestamp }));
}
