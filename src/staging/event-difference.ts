/** How an event about to be staged differs from the one staged earlier under its uuid. */
import { canonicalJson } from '../events/canonical-json.js';
import type { StagedEvent } from '../events/staged-event.js';

/** The staged row's fields compared. */
export interface StagedFields {
  kind: number;
  event: string;
  distinct_id: string;
  timestamp_ms: number;
  properties: string;
}

/** Which part of a staged event differs from the existing one, or undefined when none does. */
export function difference(existing: StagedFields, event: StagedEvent): string | undefined {
  if (existing.event !== event.event) return `event name ("${existing.event}" then "${event.event}")`;
  if (existing.distinct_id !== event.distinctId) return 'distinct_id';
  if (existing.timestamp_ms !== event.timestampMs) {
    return `timestamp (${new Date(existing.timestamp_ms).toISOString()} then ${new Date(event.timestampMs).toISOString()})`;
  }
  if (existing.kind !== event.kind) return 'kind';
  if (existing.properties !== event.propertiesJson && !sameJson(existing.properties, event.propertiesJson)) return 'properties';
  return undefined;
}

/**
 * Equal JSON values whatever their key order: a re-export may list properties in another order.
 * A `$session_id` the staged row has and the row read again lacks was given by --sessionize
 * after staging (passes/sessionize.ts): the row is the same.
 */
function sameJson(a: string, b: string): boolean {
  const staged = JSON.parse(a) as Record<string, unknown>;
  const again = JSON.parse(b) as Record<string, unknown>;
  if (canonicalJson(staged) === canonicalJson(again)) return true;
  if (!Object.hasOwn(staged, '$session_id') || Object.hasOwn(again, '$session_id')) return false;
  delete staged.$session_id;
  return canonicalJson(staged) === canonicalJson(again);
}
