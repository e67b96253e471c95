/**
 * Where accepted events go: the sandbox store (every copy, duplicates included, as ClickHouse
 * holds them before a merge) with person and group updates applied, or, in count-only mode,
 * only counters (for benchmarks).
 */
import type { Statement } from '../../sqlite/database.js';
import type { SandboxStore } from '../sandbox-store.js';
import type { CheckedCapture, ParsedCapture } from './capture-parse.js';
import { PersonGroupUpdates } from './person-group-updates.js';

export interface CaptureStats {
  requests: number;
  /** Answers by HTTP status (dropped connections under "dropped"). */
  answers: Record<string, number>;
  /** Events accepted, per project id. */
  eventsByProject: Record<string, number>;
  historicalEvents: number;
}

export class CaptureSink {
  readonly stats: CaptureStats = { requests: 0, answers: {}, eventsByProject: {}, historicalEvents: 0 };
  private readonly insert: Statement | undefined;
  private readonly updates: PersonGroupUpdates | undefined;

  constructor(
    private readonly store: SandboxStore,
    /** Count events, store nothing: then captures need not carry their events. */
    readonly countOnly: boolean,
  ) {
    this.insert = countOnly
      ? undefined
      : store.db.prepare(
          `INSERT INTO events (team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint, received_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
    this.updates = countOnly ? undefined : new PersonGroupUpdates(store);
  }

  accept(teamId: number, capture: CheckedCapture | ParsedCapture, endpoint: string, receivedAt: string): void {
    const key = String(teamId);
    const historical = capture.historicalMigration;
    this.stats.eventsByProject[key] = (this.stats.eventsByProject[key] ?? 0) + capture.eventCount;
    if (historical) this.stats.historicalEvents += capture.eventCount;
    const insert = this.insert;
    if (insert === undefined) return;
    if (!('events' in capture)) throw new Error('a storing sink needs the parsed events');
    const events = capture.events;
    this.store.transaction(() => {
      for (const e of events) {
        insert.run(teamId, e.uuid, e.event, e.distinctId, e.timestamp, JSON.stringify(e.properties), historical ? 1 : 0, endpoint, receivedAt);
        this.updates?.apply(teamId, e, receivedAt);
      }
    });
  }

  answered(status: number | 'dropped'): void {
    const key = String(status);
    this.stats.answers[key] = (this.stats.answers[key] ?? 0) + 1;
  }
}
