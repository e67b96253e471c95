/**
 * Experiments and surveys, the two kinds that lean on flags. An experiment reuses the live flag
 * whose key it names, or makes a new 50/50 flag (so a copy must bring the flag first); a survey
 * names its linked flag by id and gets its own targeting flag from `targeting_flag_filters`.
 */
import { randomBytes } from 'node:crypto';
import type { SandboxResponse } from '../../router.js';
import { validationError } from '../api-errors.js';
import { baseJson, COMMON_READ_ONLY, isRecord, type KindContext, type KindRules } from './config-kind.js';
import type { ConfigRow } from './config-store.js';
import { actionRules } from './simple-kinds.js';
import { checkOwnFlagFilters, createOwnFlag, flagSummary } from './flag-rules.js';

const FIFTY_FIFTY = {
  groups: [{ properties: [], rollout_percentage: 100 }],
  multivariate: {
    variants: [
      { key: 'control', rollout_percentage: 50 },
      { key: 'test', rollout_percentage: 50 },
    ],
  },
};

/** `validate_existing_feature_flag_for_experiment`: two variants or more, `control` first. */
function eligibleForExperiment(flag: ConfigRow): SandboxResponse | undefined {
  const filters = isRecord(flag.body.filters) ? flag.body.filters : {};
  const variants = isRecord(filters.multivariate) && Array.isArray(filters.multivariate.variants) ? filters.multivariate.variants.filter(isRecord) : [];
  if (variants.length < 2) return validationError('invalid_input', 'Feature flag is not eligible for experiments.', null);
  if (variants[0]!.key !== 'control') return validationError('invalid_input', 'Feature flag must have control as the first variant.', null);
  return undefined;
}

export const experimentRules: KindRules = {
  kind: 'experiments',
  resource: 'experiments',
  scope: 'experiment',
  readOnly: [...COMMON_READ_ONLY, 'feature_flag', 'exposure_cohort', 'holdout', 'saved_metrics', 'status', 'feature_flag_id'],
  validate: (body) => {
    if (typeof body.name !== 'string' || body.name === '') return validationError('required', 'This field is required.', 'name');
    if (typeof body.feature_flag_key !== 'string') return validationError('required', 'This field is required.', 'feature_flag_key');
    return undefined;
  },
  apply: (row, _written, context, created) => {
    if (!created) return row;
    const key = String(row.body.feature_flag_key);
    const existing = context.objects.list('feature_flags').find((flag) => flag.body.key === key);
    if (existing !== undefined) {
      const refusal = eligibleForExperiment(existing);
      if (refusal !== undefined) return refusal;
    }
    const variants = isRecord(row.body.parameters) && Array.isArray(row.body.parameters.feature_flag_variants) ? { variants: row.body.parameters.feature_flag_variants } : FIFTY_FIFTY.multivariate;
    const flag = existing ?? createOwnFlag(context, key, { ...FIFTY_FIFTY, multivariate: variants }, `Feature Flag for Experiment ${String(row.body.name)}`);
    return context.objects.update(row, { ...row.body, feature_flag_id: flag.id });
  },
  render: (row, context) => ({ ...baseJson(row), feature_flag: flagSummary(context, row.body.feature_flag_id) }),
};

/** `_associate_actions`: the project's actions whose ids the written conditions name (none when the write has no conditions). */
function associatedActions(context: KindContext, conditions: unknown): number[] {
  const values = isRecord(conditions) && isRecord(conditions.actions) && Array.isArray(conditions.actions.values) ? conditions.actions.values : [];
  const ids = values.filter(isRecord).map((value) => Number(value.id));
  return ids.filter((id) => context.objects.get('actions', id) !== undefined);
}

/** `get_conditions`: the linked actions answered in full, in place of what was written. */
function renderConditions(context: KindContext, row: ConfigRow): unknown {
  const ids = Array.isArray(row.body._action_ids) ? (row.body._action_ids as number[]) : [];
  const actions = ids.map((id) => context.objects.get('actions', id)).filter((action): action is ConfigRow => action !== undefined);
  if (actions.length === 0 || !isRecord(row.body.conditions)) return row.body.conditions ?? null;
  return { ...row.body.conditions, actions: { values: actions.map((action) => actionRules.render!(action, context, false)) } };
}

/** A targeting flag's filters: merged into the survey's existing flag, or a new flag. */
function setTargeting(context: KindContext, row: ConfigRow, filters: Record<string, unknown>): ConfigRow | SandboxResponse {
  const existing = typeof row.body.targeting_flag_id === 'number' ? context.objects.get('feature_flags', row.body.targeting_flag_id) : undefined;
  const merged = existing === undefined ? filters : { ...(isRecord(existing.body.filters) ? existing.body.filters : {}), ...filters };
  const refusal = checkOwnFlagFilters(merged, context);
  if (refusal !== undefined) return refusal;
  if (existing !== undefined) {
    context.objects.update(existing, { ...existing.body, filters: merged });
    return row;
  }
  const flag = createOwnFlag(context, `survey-targeting-${randomBytes(4).toString('hex')}`, filters, `Targeting flag for survey ${String(row.body.name)}`);
  return context.objects.update(row, { ...row.body, targeting_flag_id: flag.id });
}

function removeTargeting(context: KindContext, row: ConfigRow): ConfigRow {
  const flag = typeof row.body.targeting_flag_id === 'number' ? context.objects.get('feature_flags', row.body.targeting_flag_id) : undefined;
  if (flag !== undefined) context.objects.purge(flag);
  return context.objects.update(row, { ...row.body, targeting_flag_id: null });
}

export const surveyRules: KindRules = {
  kind: 'surveys',
  resource: 'surveys',
  scope: 'survey',
  readOnly: [...COMMON_READ_ONLY, 'linked_flag', 'targeting_flag', 'internal_targeting_flag', 'feature_flag_keys', '_action_ids'],
  writeOnly: ['targeting_flag_filters', 'remove_targeting_flag'],
  validate: (body, context, id) => {
    if (typeof body.name !== 'string' || body.name === '') return validationError('required', 'This field is required.', 'name');
    const clash = context.objects.list('surveys').some((row) => row.id !== id && row.body.name === body.name);
    if (clash) return validationError('unique', id === undefined ? 'There is already a survey with this name.' : 'There is already another survey with this name.', null);
    const linked = body.linked_flag_id;
    if (linked !== undefined && linked !== null && context.objects.get('feature_flags', Number(linked)) === undefined) {
      return validationError('invalid_input', 'Feature Flag with this ID does not exist', null);
    }
    return undefined;
  },
  apply: (row, written, context, created, request) => {
    let current = context.objects.update(row, { ...row.body, _action_ids: associatedActions(context, request.conditions) });
    if (!created && written.remove_targeting_flag === true) current = removeTargeting(context, current);
    if (isRecord(written.targeting_flag_filters) && Object.keys(written.targeting_flag_filters).length > 0) return setTargeting(context, current, written.targeting_flag_filters);
    return current;
  },
  render: (row, context) => {
    const { _action_ids: _ignored, ...json } = baseJson(row);
    return {
      ...json,
      conditions: renderConditions(context, row),
      linked_flag: flagSummary(context, row.body.linked_flag_id),
      targeting_flag: flagSummary(context, row.body.targeting_flag_id),
      start_date: row.body.start_date ?? null,
    };
  },
};
