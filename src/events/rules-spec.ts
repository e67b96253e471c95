/**
 * Event rules as plain data, so they can cross to a worker thread: the mapping file's content,
 * the zone's name, "now". `rulesFromSpec` rebuilds the working rules on either side.
 */
import type { EventRules } from './build-event.js';
import type { LinkFormat } from './identity-pair.js';
import type { IngestionRules } from './ingestion-rules.js';
import { buildNameMap, type MappingFile } from './name-map.js';
import type { RowFilters } from './row-filters.js';
import type { TransformSpec } from './row-steps.js';
import type { EventKindValue } from './staged-event.js';
import { createZoneConverter } from './time-zone.js';

export interface RulesSpec {
  /** The validated mapping file, or undefined for the built-in renames only. */
  mapping?: MappingFile;
  /** The source format's own event renames, counted as defaults (see buildNameMap). */
  formatRenames?: Readonly<Record<string, string | null>>;
  /** IANA zone for timestamps without one. */
  timezone?: string;
  /** "Now" in UTC ms: times more than 23 hours ahead are rejected, the last 48 hours warned about. */
  nowMs: number;
  /** --min-time in UTC ms: earlier times are rejected as implausible. Default 2000-01-01. */
  minTimeMs?: number;
  kind?: EventKindValue;
  /** export-source --group: put the value of `property` into `$groups[type]`. */
  groups?: GroupColumn[];
  /** export-source --sessionize (minutes): sessions are computed after staging; see EventRules.sessionize. */
  sessionizeMinutes?: number;
  /** PostHog's ingestion rules; the types come from the mapping file. */
  ingestion?: Omit<IngestionRules, 'types'>;
  /** export-source --only-events, --skip-events, --since, --until (see row-filters.ts). */
  filters?: RowFilters;
  /** export-source --transform: the module, loaded on each thread that reads rows (see row-steps.ts). */
  transform?: TransformSpec;
  /** Amplitude and Mixpanel reads: each event's identity pair is drawn as it is built (see identity-pair.ts). */
  identityPairs?: LinkFormat;
}

export interface GroupColumn {
  type: string;
  property: string;
}

export function rulesFromSpec(spec: RulesSpec): EventRules {
  return {
    nameMap: buildNameMap(spec.mapping, spec.formatRenames),
    zone: spec.timezone === undefined ? undefined : createZoneConverter(spec.timezone),
    nowMs: spec.nowMs,
    minTimeMs: spec.minTimeMs,
    kind: spec.kind,
    groups: spec.groups,
    sessionize: spec.sessionizeMinutes !== undefined,
    identityPairs: spec.identityPairs,
    ingestion: spec.ingestion === undefined ? undefined : { ...spec.ingestion, types: spec.mapping?.types },
  };
}
