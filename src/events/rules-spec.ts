/**
 * Event rules as plain data, so they can cross to a worker thread: the mapping file's content,
 * the zone's name, "now". `rulesFromSpec` rebuilds the working rules on either side.
 */
import type { EventRules } from './build-event.js';
import { buildNameMap, type MappingFile } from './name-map.js';
import type { EventKindValue } from './staged-event.js';
import { createZoneConverter } from './time-zone.js';

export interface RulesSpec {
  /** The validated mapping file, or undefined for the built-in renames only. */
  mapping?: MappingFile;
  /** IANA zone for timestamps without one. */
  timezone?: string;
  /** "Now" in UTC ms: future times are rejected, the last 48 hours warned about. */
  nowMs: number;
  kind?: EventKindValue;
}

export function rulesFromSpec(spec: RulesSpec): EventRules {
  return {
    nameMap: buildNameMap(spec.mapping),
    zone: spec.timezone === undefined ? undefined : createZoneConverter(spec.timezone),
    nowMs: spec.nowMs,
    kind: spec.kind,
  };
}
