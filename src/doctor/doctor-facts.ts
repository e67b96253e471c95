/**
 * Everything the preflight checks judge, gathered beforehand by doctor's I/O (HTTP answers,
 * the config, disk numbers, the clock, the staging file). The checks are pure functions of
 * these values, so each verdict is tested with a table of facts.
 */
import type { DiskFacts } from '../machine/disk-facts.js';
import type { GroupTypeUse } from '../staging/rule-report.js';
import type { DayCount, StagedSummary } from '../staging/staged-facts.js';

/** An HTTP answer as the checks read it: status, content type, the first 200 characters. */
export interface ProbeAnswer {
  status: number;
  contentType: string;
  bodyStart: string;
  /** Where a redirect points. */
  location?: string;
}

export type Probe =
  | { type: 'answer'; answer: ProbeAnswer }
  /** No answer after the retries (network error, timeout), with the reason. */
  | { type: 'unreachable'; reason: string }
  | { type: 'not-sent'; reason: string };

export interface HostFacts {
  /** The ingestion host requests go to. */
  host: string;
  /** The host as configured, when the config's app host was mapped to its ingestion host. */
  configuredHost?: string;
  /** The answer to `POST {host}/batch/` with an empty batch. */
  emptyBatch: Probe;
}

export interface ApiProject {
  id: number;
  name: string;
  apiToken: string;
}

export type KeyFacts =
  /**
   * The personal key read the configured project; `others` is filled when its token differs.
   * `flags` is the ingestion host's own answer to the key: the API may be another PostHog than
   * the host events go to (`apiHost` set apart from `host`).
   */
  | { via: 'api'; configuredKey: string; projectId: string; project: ApiProject; others?: ApiProject[]; flags?: Probe }
  /** The API did not answer the project (404, 403 without access...); the flags endpoint was asked instead. */
  | { via: 'api-failed'; projectId: string; status: number; message: string; flags: Probe }
  /** PostHog's flags endpoint, asked with the project key; `why` says why not the API. */
  | { via: 'flags'; probe: Probe; why: string };

/** A project of the config as far as "which PostHog project is it" goes. */
export interface ConfiguredProject {
  name: string;
  role: 'test' | 'production';
  /** Its ingestion host. */
  host: string;
  projectId?: string;
  /** Its project key, or why it could not be read (an unset environment variable). */
  apiKey: string | { unavailable: string };
}

export interface SeparationFacts {
  target: ConfiguredProject & { apiKey: string };
  others: ConfiguredProject[];
}

export type PersonalKeyFacts =
  | { state: 'none' }
  /** Configured but not usable here (its environment variable unset, no projectId). */
  | { state: 'unusable'; reason: string }
  /** The API refused it (401). */
  | { state: 'refused'; message: string }
  /** `GET /api/personal_api_keys/@current/` answered its scopes. */
  | { state: 'listed'; projectId: string; scopes: string[]; scopedTeams: number[] }
  /** Older PostHog: scopes probed one read at a time; write scopes stay unknown. */
  | { state: 'probed'; projectId: string; granted: string[]; missing: string[] };

export type ProjectEventsFacts = { state: 'not-checked'; reason: string } | { state: 'failed'; message: string } | { state: 'counted'; perDay: DayCount[] };

export type BillingFacts =
  | { state: 'not-checked'; reason: string }
  | { state: 'unreadable'; status: number; message: string }
  | { state: 'read'; eventsUsage: number | null; eventsLimit: number | null; periodEnd: string | null };

export interface StagedFacts {
  summary: StagedSummary;
  perDay: DayCount[];
  /** What PostHog's ingestion rules need checked over the whole file (see staging/rule-report.ts). */
  rules?: StagedRuleFacts;
}

export interface StagedRuleFacts {
  groupTypes: GroupTypeUse[];
  /** Reads staged by a migrate that set no `$geoip_disable`. */
  olderGeoReads: Array<{ path: string; staged: number }>;
}

export interface MachineFacts {
  disk: DiskFacts;
  /** What the staging file still needs on disk (see disk-estimate.ts); undefined when nothing is staged. */
  neededBytes?: number;
  /** The local clock when the server's answer arrived, and the server's Date header, if any. */
  localNowMs: number;
  serverDate?: string;
  nodeVersion: string;
}

export interface DoctorFacts {
  project: string;
  host: HostFacts;
  key: KeyFacts;
  separation: SeparationFacts;
  personalKey: PersonalKeyFacts;
  staged?: StagedFacts;
  projectEvents: ProjectEventsFacts;
  billing: BillingFacts;
  machine: MachineFacts;
}
