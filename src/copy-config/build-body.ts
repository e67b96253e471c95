/**
 * From a source object to what is written in the destination: its writable fields, every
 * reference rewritten, and what each kind needs besides (a flag inactive unless its state is
 * kept, a survey unlaunched with its flags named by their new ids, an experiment tied to its
 * copied flag). Also the content each side is compared by: the source's as read, the
 * destination's as it answered.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../json/canonical-json.js';
import { pickFields, WRITABLE_FIELDS, type CopyKind } from './config-kinds.js';
import { remapOne, remapReferences, type IdMaps, type MissingReference } from './remap-references.js';

type Json = Record<string, unknown>;

export interface BuiltBody {
  body: Json;
  missing: MissingReference[];
  warnings: string[];
}

export interface BuildOptions {
  keepFlagState: boolean;
}

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The source's fields that references are drawn from, beyond the writable ones (a survey's flags, an experiment's flag). */
export function linkedContent(kind: CopyKind, source: Json): Json {
  if (kind === 'surveys') {
    return { linked_flag_id: record(source.linked_flag)?.id ?? source.linked_flag_id ?? null, targeting_flag_filters: record(source.targeting_flag)?.filters ?? null };
  }
  if (kind === 'experiments') return { feature_flag_id: record(source.feature_flag)?.id ?? null };
  return {};
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

/** The content a side is compared by: writable fields, linked fields, and any extra (tiles, members). */
export function contentOf(kind: CopyKind, object: Json, extra: Json = {}): Json {
  return { ...pickFields(object, WRITABLE_FIELDS[kind]), ...linkedContent(kind, object), ...extra };
}

function experimentWarnings(source: Json): string[] {
  const warnings: string[] = [];
  if (source.holdout_id !== undefined && source.holdout_id !== null) warnings.push('its holdout group is not copied');
  if (Array.isArray(source.saved_metrics_ids) && source.saved_metrics_ids.length > 0) warnings.push('its shared saved metrics are not copied');
  return warnings;
}

function kindSpecific(kind: CopyKind, source: Json, body: Json, maps: IdMaps, options: BuildOptions): { missing: MissingReference[]; warnings: string[] } {
  const missing: MissingReference[] = [];
  const take = (result: { value: unknown; missing?: MissingReference }): unknown => {
    if (result.missing !== undefined) missing.push(result.missing);
    return result.value;
  };
  if (kind === 'flags' && !options.keepFlagState) body.active = false;
  if (kind === 'annotations') {
    if (body.dashboard_item !== undefined && body.dashboard_item !== null) body.dashboard_item = take(remapOne('insight', body.dashboard_item, maps));
    if (body.dashboard_id !== undefined && body.dashboard_id !== null) body.dashboard_id = take(remapOne('dashboard', body.dashboard_id, maps));
  }
  if (kind === 'experiments') {
    const flagId = linkedContent(kind, source).feature_flag_id;
    if (flagId !== null) take(remapOne('flag', flagId, maps));
    return { missing, warnings: experimentWarnings(source) };
  }
  if (kind === 'surveys') {
    const linked = linkedContent(kind, source);
    if (linked.linked_flag_id !== null) body.linked_flag_id = take(remapOne('flag', linked.linked_flag_id, maps));
    if (linked.targeting_flag_filters !== null) {
      const filters = remapReferences(linked.targeting_flag_filters, maps);
      missing.push(...filters.missing);
      body.targeting_flag_filters = filters.value;
    }
  }
  return { missing, warnings: [] };
}

export function buildBody(kind: CopyKind, source: Json, maps: IdMaps, options: BuildOptions): BuiltBody {
  const remapped = remapReferences(pickFields(source, WRITABLE_FIELDS[kind]), maps);
  const body = remapped.value;
  const extra = kindSpecific(kind, source, body, maps, options);
  const warnings = [
    ...extra.warnings,
    ...remapped.hogql.map((text) => `its HogQL names an id that cannot be remapped safely, copied as written: ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`),
  ];
  return { body, missing: [...remapped.missing, ...extra.missing], warnings };
}
