/**
 * What a survey's copy needs beyond its fields: the action ids of its display conditions
 * rewritten (PostHog links whatever destination action has the id sent), its linked flag and
 * targeting named by their new ids, and a flag or targeting removed in the source removed in the
 * destination too (PostHog keeps both unless told: `linked_flag_id: null`,
 * `remove_targeting_flag`). A response-sampling start in the past is refused by PostHog: it
 * moves to today.
 */
import { remapOne, remapReferences, type IdMaps, type MissingReference } from './remap-references.js';

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The source's fields that references are drawn from, beyond the writable ones. */
export function surveyLinks(source: Json): Json {
  return { linked_flag_id: record(source.linked_flag)?.id ?? source.linked_flag_id ?? null, targeting_flag_filters: record(source.targeting_flag)?.filters ?? null };
}

function conditionActions(conditions: unknown): Json[] | undefined {
  const values = record(record(conditions)?.actions)?.values;
  return Array.isArray(values) ? values.map((value) => record(value) ?? {}) : undefined;
}

/**
 * Conditions as compared: PostHog answers the linked actions in full (their counts and times
 * change), so each is reduced to its id.
 */
export function comparableConditions(conditions: unknown): unknown {
  const actions = conditionActions(conditions);
  if (actions === undefined) return conditions;
  return { ...record(conditions), actions: { values: actions.map((action) => ({ id: action.id ?? null })) } };
}

export interface SurveyExtras {
  missing: MissingReference[];
  warnings: string[];
  /** Sent on update only (removals of what the destination copy still has). */
  onUpdate: Json;
}

function take(missing: MissingReference[], result: { value: unknown; missing?: MissingReference }): unknown {
  if (result.missing !== undefined) missing.push(result.missing);
  return result.value;
}

/** Fills `body` (the survey's writable fields, references already rewritten) with what a survey needs. */
export function surveyExtras(source: Json, body: Json, maps: IdMaps, todayIso: string): SurveyExtras {
  const missing: MissingReference[] = [];
  const warnings: string[] = [];
  const onUpdate: Json = {};
  const actions = conditionActions(body.conditions);
  if (actions !== undefined) {
    const values = actions.map((action) => ({ id: take(missing, remapOne('action', action.id, maps)), name: action.name ?? null }));
    body.conditions = { ...record(body.conditions), actions: { values } };
  }
  const links = surveyLinks(source);
  body.linked_flag_id = links.linked_flag_id === null ? null : take(missing, remapOne('flag', links.linked_flag_id, maps));
  if (links.targeting_flag_filters === null) onUpdate.remove_targeting_flag = true;
  else {
    const filters = remapReferences(links.targeting_flag_filters, maps);
    missing.push(...filters.missing);
    body.targeting_flag_filters = filters.value;
  }
  if (body.linked_insight_id !== undefined && body.linked_insight_id !== null) body.linked_insight_id = take(missing, remapOne('insight', body.linked_insight_id, maps));
  const sampling = body.response_sampling_start_date;
  if (typeof sampling === 'string' && sampling.slice(0, 10) < todayIso.slice(0, 10)) {
    body.response_sampling_start_date = `${todayIso.slice(0, 10)}T00:00:00Z`;
    warnings.push(`its response sampling started on ${sampling.slice(0, 10)}; PostHog takes no start in the past, so it starts today`);
  }
  return { missing, warnings, onUpdate };
}
