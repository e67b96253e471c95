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
import { remapVariables } from './insight-variables.js';
import { comparableConditions, surveyExtras, surveyLinks } from './survey-body.js';

type Json = Record<string, unknown>;

export interface BuiltBody {
  body: Json;
  /** Sent when the object is created, never on an update (a flag's `active: false`). */
  onCreate: Json;
  /** Sent on an update only (a survey's targeting removed in the source). */
  onUpdate: Json;
  missing: MissingReference[];
  warnings: string[];
}

export interface BuildOptions {
  keepFlagState: boolean;
  /** Today as an ISO date-time, for dates PostHog takes only from today on. */
  todayIso: string;
  /** Source insight variable ids to the destination's. */
  variables: ReadonlyMap<string, string>;
}

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The source's fields that references are drawn from, beyond the writable ones (a survey's flags, an experiment's flag). */
export function linkedContent(kind: CopyKind, source: Json): Json {
  if (kind === 'surveys') return surveyLinks(source);
  if (kind === 'experiments') return { feature_flag_id: record(source.feature_flag)?.id ?? null };
  return {};
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

/** The content a side is compared by: writable fields, linked fields, and any extra (tiles, members). */
export function contentOf(kind: CopyKind, object: Json, extra: Json = {}): Json {
  const fields = pickFields(object, WRITABLE_FIELDS[kind]);
  if (kind === 'surveys' && fields.conditions !== undefined) fields.conditions = comparableConditions(fields.conditions);
  return { ...fields, ...linkedContent(kind, object), ...extra };
}

function experimentWarnings(source: Json): string[] {
  const warnings: string[] = [];
  if (source.holdout_id !== undefined && source.holdout_id !== null) warnings.push('its holdout group is not copied');
  if (Array.isArray(source.saved_metrics_ids) && source.saved_metrics_ids.length > 0) warnings.push('its shared saved metrics are not copied');
  return warnings;
}

/** A flag's holdout conditions name a holdout of the source (`holdout-<id>`); holdouts are not copied, so they are left out. */
function dropHoldouts(body: Json): string[] {
  const filters = record(body.filters);
  const holdouts = Array.isArray(filters?.holdout_groups) ? filters.holdout_groups : [];
  if (filters === undefined || holdouts.length === 0) return [];
  body.filters = { ...filters, holdout_groups: [] };
  const variants = holdouts.map((group) => String(record(group)?.variant ?? '')).join(', ');
  return [`its holdout conditions (${variants}) are left out: they name a holdout of the source project, and holdouts are not copied`];
}

type Extras = Omit<BuiltBody, 'body'>;

function kindSpecific(kind: CopyKind, source: Json, body: Json, maps: IdMaps, options: BuildOptions): Extras {
  const extras: Extras = { onCreate: {}, onUpdate: {}, missing: [], warnings: [] };
  const take = (result: { value: unknown; missing?: MissingReference }): unknown => {
    if (result.missing !== undefined) extras.missing.push(result.missing);
    return result.value;
  };
  if (kind === 'flags') {
    // Only a new flag is switched off: one switched on by hand in the destination stays on.
    if (!options.keepFlagState) {
      delete body.active;
      extras.onCreate.active = false;
    }
    extras.warnings.push(...dropHoldouts(body));
  }
  // PostHog answers a cohort built from a query with `filters` filled in, and refuses both on create.
  if (kind === 'cohorts' && record(body.query) !== undefined) {
    delete body.filters;
    delete body.groups;
  }
  if (kind === 'insights' || kind === 'dashboards') {
    const variables = remapVariables(body, options.variables);
    Object.assign(body, variables.value);
    for (const id of variables.unmatched) extras.warnings.push(`its insight variable ${id} has no counterpart in the destination; left as written`);
  }
  if (kind === 'annotations') {
    if (body.dashboard_item !== undefined && body.dashboard_item !== null) body.dashboard_item = take(remapOne('insight', body.dashboard_item, maps));
    if (body.dashboard_id !== undefined && body.dashboard_id !== null) body.dashboard_id = take(remapOne('dashboard', body.dashboard_id, maps));
  }
  if (kind === 'experiments') {
    const flagId = linkedContent(kind, source).feature_flag_id;
    if (flagId !== null) take(remapOne('flag', flagId, maps));
    // A launched experiment over a flag that arrives off would count no exposures: it arrives a draft.
    if (!options.keepFlagState) {
      delete body.start_date;
      delete body.end_date;
    }
    extras.warnings.push(...experimentWarnings(source));
  }
  if (kind === 'surveys') {
    const survey = surveyExtras(source, body, maps, options.todayIso);
    extras.missing.push(...survey.missing);
    extras.warnings.push(...survey.warnings);
    Object.assign(extras.onUpdate, survey.onUpdate);
  }
  return extras;
}

export function buildBody(kind: CopyKind, source: Json, maps: IdMaps, options: BuildOptions): BuiltBody {
  const remapped = remapReferences(pickFields(source, WRITABLE_FIELDS[kind]), maps);
  const body = remapped.value;
  const extra = kindSpecific(kind, source, body, maps, options);
  const warnings = [
    ...extra.warnings,
    ...remapped.hogql.map((text) => `its HogQL names an id that cannot be remapped safely, copied as written: ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`),
  ];
  return { body, onCreate: extra.onCreate, onUpdate: extra.onUpdate, missing: [...remapped.missing, ...extra.missing], warnings };
}
