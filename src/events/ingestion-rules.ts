/**
 * PostHog's ingestion rules that change or refuse what it is sent, applied when a row is
 * staged, so the staging file holds every event exactly as it will be sent:
 *
 * - GeoIP: PostHog locates an event by its `$ip`, and without one by the address of the machine
 *   that sent it (the migration's), then writes that place onto the person. Every row without
 *   its own `$ip` (every row, with --no-geoip) carries `$geoip_disable: true`.
 * - `$set_once` nulls are dropped: a null would hold the property as null for good.
 * - Types: `utm_*` properties are strings, and the map file's `"types"` are applied.
 * - An `$identify` (or alias) naming an id PostHog refuses to merge on is rejected: the merge
 *   would not happen. Other rows with such an id are counted (they all become one person).
 * - A person update over 512 KB of properties is rejected: PostHog caps a person at 512 KB.
 * - Provenance: `$import_source` and `$import_run` on every row, to find the import later.
 *
 * Pure: the caller gives the row's properties (mutated in place) and gets the facts counted
 * about it, or the problem that rejects it.
 */
import { isIllegalDistinctId } from './illegal-distinct-id.js';
import { coercePropertyTypes, type ForcedType } from './property-coercion.js';
import { problem, type RowProblem } from './reject-reasons.js';
import { FACT_EVENT_SET, FACT_ILLEGAL_ID, rowProfile, type RowFacts } from './row-facts.js';
import { EventKind, type EventKindValue } from './staged-event.js';
import { MAX_PERSON_PROPERTIES_BYTES } from '../posthog/limits.js';

export interface IngestionRules {
  /**
   * True: rows with their own `$ip` are left to PostHog's GeoIP, the others carry
   * `$geoip_disable`. False (--no-geoip): every row carries it.
   */
  geoipFromIp: boolean;
  /** `$import_source`: the format or command the rows come from (csv, mixpanel, identify-users...). */
  importSource: string;
  /** `$import_run`: the staging file's id, the same on every row and every re-send. */
  importRun: string;
  /** The map file's `"types"`. */
  types?: Readonly<Record<string, ForcedType>>;
}

/** The id fields of the events that link two ids: both must be ids PostHog merges on. */
const LINK_FIELDS: ReadonlyMap<string, string> = new Map([
  ['$identify', '$anon_distinct_id'],
  ['$create_alias', 'alias'],
  ['$merge_dangerously', 'alias'],
]);

interface RowHead {
  event: string;
  distinctId: string;
  kind: EventKindValue;
  /** The source's name for the distinct_id field, for messages. */
  distinctIdField: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function illegalLink(row: RowHead, properties: Record<string, unknown>): RowProblem | undefined {
  const field = LINK_FIELDS.get(row.event);
  if (field === undefined) return undefined;
  const why = (id: string): string => `PostHog refuses to merge on the distinct_id ${JSON.stringify(id)}: this ${row.event} would link nothing`;
  if (isIllegalDistinctId(row.distinctId)) return problem('illegal_distinct_id', row.distinctIdField, why(row.distinctId));
  const other = properties[field];
  if ((typeof other === 'string' || typeof other === 'number') && isIllegalDistinctId(String(other))) return problem('illegal_distinct_id', field, why(String(other)));
  return undefined;
}

/** Drops null values from `$set_once`; how many. */
function dropSetOnceNulls(properties: Record<string, unknown>): number {
  const setOnce = properties.$set_once;
  if (!isObject(setOnce)) return 0;
  let dropped = 0;
  for (const key of Object.keys(setOnce)) {
    if (setOnce[key] !== null) continue;
    delete setOnce[key];
    dropped++;
  }
  if (dropped > 0 && Object.keys(setOnce).length === 0) delete properties.$set_once;
  return dropped;
}

function personPropertiesBytes(properties: Record<string, unknown>): number {
  const text = (value: unknown): string => (isObject(value) ? JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) : '');
  return Buffer.byteLength(text(properties.$set), 'utf8') + Buffer.byteLength(text(properties.$set_once), 'utf8');
}

function hasOwnIp(properties: Record<string, unknown>): boolean {
  return typeof properties.$ip === 'string' && properties.$ip.trim() !== '';
}

/** Applies the rules to a row's properties in place; the facts to count about it, or why it is rejected. */
export function applyIngestionRules(row: RowHead, properties: Record<string, unknown>, rules: IngestionRules): RowFacts | RowProblem {
  const link = illegalLink(row, properties);
  if (link !== undefined) return link;
  const typed = coercePropertyTypes(properties, rules.types ?? {});
  if (typed !== undefined) return typed;
  const setOnceNulls = dropSetOnceNulls(properties);
  if (row.kind === EventKind.person) {
    const bytes = personPropertiesBytes(properties);
    if (bytes > MAX_PERSON_PROPERTIES_BYTES) {
      return problem('person_properties_too_large', '$set', `the person's properties are ${Math.round(bytes / 1024)} KB; PostHog keeps at most ${MAX_PERSON_PROPERTIES_BYTES / 1024} KB per person`);
    }
  }
  if (!rules.geoipFromIp || !hasOwnIp(properties)) properties.$geoip_disable = true;
  properties.$import_source = rules.importSource;
  properties.$import_run = rules.importRun;
  let flags = 0;
  if (row.kind === EventKind.event && isObject(properties.$set) && Object.keys(properties.$set).length > 0) flags |= FACT_EVENT_SET;
  if (!LINK_FIELDS.has(row.event) && isIllegalDistinctId(row.distinctId)) flags |= FACT_ILLEGAL_ID;
  return { profile: rowProfile(row.kind, properties, setOnceNulls), flags };
}
