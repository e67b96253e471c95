/**
 * Where accepted events go: through the sandbox's model of PostHog's ingestion into its store
 * (every copy, duplicates included, as ClickHouse holds them before a merge), or, in
 * count-only mode, only into counters (for benchmarks). Also what PostHog drops after saying
 * 200: `$performance_event` events, and, when asked, a share of events lost after acceptance.
 */
import type { SandboxStore } from '../sandbox-store.js';
import type { CheckedCapture, ParsedCapture } from './capture-parse.js';
import { EventIngestion } from './event-ingestion.js';

export interface DroppedStats {
  /** Answered 200 while "over quota": capture dropped them. */
  overQuota: number;
  /** Answered 200 for a token of no project (`--unknown-tokens accept-and-drop`). */
  unknownToken: number;
  /** `$performance_event` events, which ingestion drops. */
  performanceEvent: number;
  /** Accepted, then lost (`--lose-after-accept`). */
  lostAfterAccept: number;
}

export interface CaptureStats {
  requests: number;
  /** Answers by HTTP status (dropped connections under "dropped"). */
  answers: Record<string, number>;
  /** Events capture accepted, per project id (stored, or dropped later by ingestion). */
  eventsByProject: Record<string, number>;
  historicalEvents: number;
  dropped: DroppedStats;
}

export interface LossOptions {
  /** Share of accepted events lost after the 200, in [0, 1]. */
  share: number;
  random: () => number;
}

export interface AcceptMeta {
  endpoint: string;
  receivedAt: string;
  clientIp: string | undefined;
}

/** How many of a request's events capture passed on: all, or those before the one too big. */
export const acceptedCount = (capture: CheckedCapture): number => capture.tooBigAt ?? capture.eventCount;

export class CaptureSink {
  readonly stats: CaptureStats = {
    requests: 0,
    answers: {},
    eventsByProject: {},
    historicalEvents: 0,
    dropped: { overQuota: 0, unknownToken: 0, performanceEvent: 0, lostAfterAccept: 0 },
  };
  private readonly ingestion: EventIngestion | undefined;

  constructor(
    private readonly store: SandboxStore,
    /** Count events, store nothing: then captures need not carry their events. */
    readonly countOnly: boolean,
    private readonly loss?: LossOptions,
  ) {
    this.ingestion = countOnly ? undefined : new EventIngestion(store);
  }

  private lost(): boolean {
    return this.loss !== undefined && this.loss.share > 0 && this.loss.random() < this.loss.share;
  }

  accept(teamId: number, capture: CheckedCapture | ParsedCapture, meta: AcceptMeta): void {
    const key = String(teamId);
    const count = acceptedCount(capture);
    const historical = capture.historicalMigration;
    this.stats.eventsByProject[key] = (this.stats.eventsByProject[key] ?? 0) + count;
    if (historical) this.stats.historicalEvents += count;
    const ingestion = this.ingestion;
    if (ingestion === undefined) {
      for (let i = 0; i < count; i++) if (this.lost()) this.stats.dropped.lostAfterAccept++;
      return;
    }
    if (!('events' in capture)) throw new Error('a storing sink needs the parsed events');
    const dropped = this.stats.dropped;
    this.store.transaction(() => {
      for (const event of capture.events) {
        if (event.event === '$performance_event') dropped.performanceEvent++;
        else if (this.lost()) dropped.lostAfterAccept++;
        else ingestion.ingest(event, { teamId, historical, ...meta });
      }
    });
  }

  drop(reason: 'overQuota' | 'unknownToken', capture: CheckedCapture): void {
    this.stats.dropped[reason] += reason === 'overQuota' ? capture.eventCount : acceptedCount(capture);
  }

  answered(status: number | 'dropped'): void {
    const key = String(status);
    this.stats.answers[key] = (this.stats.answers[key] ?? 0) + 1;
  }
}
