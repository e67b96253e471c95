/**
 * Experiments and surveys, the two kinds that lean on flags. An experiment reuses the live flag
 * whose key it names, or makes a new 50/50 flag (so a copy must bring the flag first); a survey
 * names its linked flag by id and gets its own targeting flag from `targeting_flag_filters`.
 */
import { randomBytes } from 'node:crypto';
import { validationError } from '../api-errors.js';
import { baseJson, COMMON_READ_ONLY, isRecord, type KindRules } from './config-kind.js';
import { createOwnFlag, flagSummary } from './flag-rules.js';

const FIFTY_FIFTY = {
  groups: [{ properties: [], rollout_percentage: 100 }],
  multivariate: {
    variants: [
      { key: 'control', rollout_percentage: 50 },
      { key: 'test', rollout_percentage: 50 },
    ],
  },
};

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
    const variants = isRecord(row.body.parameters) && Array.isArray(row.body.parameters.feature_flag_variants) ? { variants: row.body.parameters.feature_flag_variants } : FIFTY_FIFTY.multivariate;
    const flag = existing ?? createOwnFlag(context, key, { ...FIFTY_FIFTY, multivariate: variants }, `Feature Flag for Experiment ${String(row.body.name)}`);
    return context.objects.update(row, { ...row.body, feature_flag_id: flag.id });
  },
  render: (row, context) => ({ ...baseJson(row), feature_flag: flagSummary(context, row.body.feature_flag_id) }),
};

export const surveyRules: KindRules = {
  kind: 'surveys',
  resource: 'surveys',
  scope: 'survey',
  readOnly: [...COMMON_READ_ONLY, 'linked_flag', 'targeting_flag', 'internal_targeting_flag'],
  writeOnly: ['targeting_flag_filters', 'remove_targeting_flag'],
  validate: (body, context) => {
    if (typeof body.name !== 'string' || body.name === '') return validationError('required', 'This field is required.', 'name');
    const linked = body.linked_flag_id;
    if (linked !== undefined && linked !== null && context.objects.get('feature_flags', Number(linked)) === undefined) {
      return validationError('does_not_exist', `Invalid pk "${String(linked)}" - object does not exist.`, 'linked_flag_id');
    }
    return undefined;
  },
  apply: (row, written, context) => {
    if (written.remove_targeting_flag === true) return context.objects.update(row, { ...row.body, targeting_flag_id: null });
    if (!isRecord(written.targeting_flag_filters)) return row;
    const flag = createOwnFlag(context, `survey-targeting-${randomBytes(4).toString('hex')}`, written.targeting_flag_filters, `Targeting flag for survey ${String(row.body.name)}`);
    return context.objects.update(row, { ...row.body, targeting_flag_id: flag.id });
  },
  render: (row, context) => ({
    ...baseJson(row),
    linked_flag: flagSummary(context, row.body.linked_flag_id),
    targeting_flag: flagSummary(context, row.body.targeting_flag_id),
    start_date: row.body.start_date ?? null,
  }),
};
