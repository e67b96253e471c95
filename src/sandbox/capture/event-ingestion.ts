/**
 * What PostHog's ingestion does with an accepted event before it is stored, in its order:
 * `$ip` and GeoIP, the person's update (merges first), a `$groupidentify`'s group, then the
 * event written with snapshots of its person's and its groups' properties as they are now
 * (persons-on-events), its session filed when `$session_id` is a UUIDv7, and any ingestion
 * warning recorded. Call inside the transaction that stores the request's events.
 */
import type { Statement } from '../../sqlite/database.js';
import type { SandboxStore } from '../sandbox-store.js';
import type { CapturedEvent } from './capture-parse.js';
import { GroupState } from './group-state.js';
import { PersonState } from './person-state.js';
import { updatePerson } from './person-updates.js';
import { applyGeoip } from './sandbox-geoip.js';
import { storedTime } from '../stored-time.js';

export interface IngestMeta {
  teamId: number;
  historical: boolean;
  endpoint: string;
  receivedAt: string;
  /** The address the request came from (the `$ip` of events without one). */
  clientIp: string | undefined;
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** When a UUIDv7 session id started (the time in its first 48 bits); undefined for any other id. */
export function sessionStart(sessionId: unknown): string | undefined {
  if (typeof sessionId !== 'string' || !UUID_V7.test(sessionId)) return undefined;
  const ms = parseInt(sessionId.slice(0, 8) + sessionId.slice(9, 13), 16);
  return new Date(ms).toISOString();
}

export class EventIngestion {
  private readonly persons: PersonState;
  private readonly groups: GroupState;
  private readonly insert: Statement;
  private readonly session: Statement;
  private readonly warning: Statement;

  constructor(store: SandboxStore) {
    const db = store.db;
    this.persons = new PersonState(store);
    this.groups = new GroupState(store);
    this.insert = db.prepare(
      `INSERT INTO events (team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint, received_at,
         person_id, person_properties, group0_properties, group1_properties, group2_properties, group3_properties, group4_properties)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.session = db.prepare(
      `INSERT INTO sessions (team_id, session_id, session_start, distinct_id, first_timestamp, last_timestamp, event_count)
       VALUES (?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (team_id, session_id) DO UPDATE SET
         distinct_id = CASE WHEN excluded.first_timestamp < first_timestamp THEN excluded.distinct_id ELSE distinct_id END,
         first_timestamp = min(first_timestamp, excluded.first_timestamp),
         last_timestamp = max(last_timestamp, excluded.last_timestamp),
         event_count = event_count + 1`,
    );
    this.warning = db.prepare('INSERT INTO ingestion_warnings (team_id, type, details, timestamp) VALUES (?, ?, ?, ?)');
  }

  ingest(event: CapturedEvent, meta: IngestMeta): void {
    const teamId = meta.teamId;
    const props = event.properties;
    applyGeoip(props, meta.clientIp);
    const person = updatePerson(this.persons, teamId, event);
    if (event.event === '$groupidentify') this.groups.identify(teamId, props, meta.receivedAt);
    const groups = this.groups.snapshot(teamId, props);
    const stored = storedTime(event.timestamp);
    this.insert.run(
      teamId,
      event.uuid,
      event.event,
      event.distinctId,
      stored,
      JSON.stringify(props),
      meta.historical ? 1 : 0,
      meta.endpoint,
      meta.receivedAt,
      person.personId,
      person.properties,
      ...groups,
    );
    const start = sessionStart(props.$session_id);
    if (start !== undefined) this.session.run(teamId, (props.$session_id as string).toLowerCase(), start, event.distinctId, stored, stored);
    if (event.warning !== undefined) this.warning.run(teamId, event.warning, JSON.stringify({ eventUuid: event.uuid, distinctId: event.distinctId }), meta.receivedAt);
  }
}
