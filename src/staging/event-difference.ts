/** How an event about to be staged differs from the one staged earlier under its uuid. */
import { canonicalJson } from '../json/canonical-json.js';
import type { StagedEvent } from '../events/staged-event.js';
import { formatTimestamp } from '../events/timestamp.js';
import { parseStagedJson } from '../json/read-json.js';

/** The staged row's fields compared. */
export interface StagedFields {
  kind: number;
  event: string;
  distinct_id: string;
  timestamp_ms: number;
  /** Microseconds past timestamp_ms; 0 for rows staged before they were kept. */
  sub_ms_us: number;
  properties: string;
}

/** Which part of a staged event differs from the existing one, said to follow "with a different"; undefined when none does. */
export function difference(existing: StagedFields, event: StagedEvent): string | undefined {
  if (existing.event !== event.event) return `event name ("${existing.event}" then "${event.event}")`;
  if (existing.distinct_id !== event.distinctId) return 'distinct_id';
  // A time without microseconds is the same time cut to the millisecond: by a migrate that cut
  // every time (a row staged before they were kept), or by a source that holds none (an export in
  // milliseconds of events another file has in microseconds). Whichever came first is kept.
  const subMs = event.subMsUs ?? 0;
  const subMsDiffers = existing.sub_ms_us !== 0 && subMs !== 0 && existing.sub_ms_us !== subMs;
  if (existing.timestamp_ms !== event.timestampMs || subMsDiffers) {
    return `timestamp (${formatTimestamp(existing.timestamp_ms, existing.sub_ms_us)} then ${formatTimestamp(event.timestampMs, event.subMsUs)})`;
  }
  if (existing.kind !== event.kind) return 'kind';
  if (existing.properties !== event.propertiesJson && !sameJson(existing.properties, event.propertiesJson)) return olderRules(existing.properties, event.propertiesJson);
  return undefined;
}

/** What the staging rules add to every row (ingestion-rules.ts). */
const RULE_KEYS = ['$geoip_disable', '$import_source', '$import_run'];

function parseObject(text: string): Record<string, unknown> {
  return parseStagedJson(text) as Record<string, unknown>;
}

/**
 * A row staged by a migrate that did not apply PostHog's ingestion rules at staging lacks what
 * they add: when that is the only difference it is the same row (kept as it was staged; doctor
 * warns that such rows would be located at the importing machine). Any other difference is named.
 */
function olderRules(existing: string, staged: string): string | undefined {
  const before = parseObject(existing);
  if (Object.hasOwn(before, '$import_run')) return 'set of properties';
  const after = parseObject(staged);
  if (!Object.hasOwn(after, '$import_run')) return 'set of properties';
  for (const key of RULE_KEYS) {
    delete before[key];
    delete after[key];
  }
  if (canonicalJson(before) === canonicalJson(after)) return undefined;
  return "set of properties (it was staged by an earlier migrate, before PostHog's ingestion rules were applied at staging; stage into a new staging file to apply them)";
}

/**
 * Equal JSON values whatever their key order: a re-export may list properties in another order.
 * A `$session_id` the staged row has and the row read again lacks was given by --sessionize
 * after staging (passes/sessionize.ts): the row is the same.
 */
function sameJson(a: string, b: string): boolean {
  const staged = parseObject(a);
  const again = parseObject(b);
  if (canonicalJson(staged) === canonicalJson(again)) return true;
  if (!Object.hasOwn(staged, '$session_id') || Object.hasOwn(again, '$session_id')) return false;
  delete staged.$session_id;
  return canonicalJson(staged) === canonicalJson(again);
}
