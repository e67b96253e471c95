/**
 * Feature flags as PostHog's serializer treats them: a key unique among live flags (taking a
 * soft-deleted flag's key removes that flag for good), at least one release condition, variants
 * that add up to 100, dependencies on flags that exist, and a usage dashboard made for each new
 * flag unless `_should_create_usage_dashboard` is false.
 */
import type { SandboxResponse } from '../../router.js';
import { validationError } from '../api-errors.js';
import { baseJson, COMMON_READ_ONLY, isRecord, type KindContext, type KindRules } from './config-kind.js';
import type { ConfigRow } from './config-store.js';

const KEY_PATTERN = /^[a-zA-Z0-9_-]+$/;

function dependencies(filters: Record<string, unknown>): string[] {
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  return groups.flatMap((group) => {
    const properties = isRecord(group) && Array.isArray(group.properties) ? group.properties : [];
    return properties.filter((p): p is Record<string, unknown> => isRecord(p) && p.type === 'flag').map((p) => String(p.key));
  });
}

function propertiesOf(filters: Record<string, unknown>): Array<Record<string, unknown>> {
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  return groups.flatMap((group) => (isRecord(group) && Array.isArray(group.properties) ? group.properties.filter(isRecord) : []));
}

const invalid = (detail: string, code = 'invalid_input'): SandboxResponse => validationError(code, detail, 'filters');

/** A cohort's own properties and those of the cohorts it names, flattened. */
function cohortProperties(context: KindContext, cohortId: number, seen: Set<number> = new Set()): Array<Record<string, unknown>> {
  if (seen.has(cohortId)) return [];
  seen.add(cohortId);
  const cohort = context.objects.get('cohorts', cohortId);
  const flat: Array<Record<string, unknown>> = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (isRecord(node) && Array.isArray(node.values)) node.values.forEach(walk);
    else if (isRecord(node) && typeof node.type === 'string') flat.push(node);
  };
  walk(isRecord(cohort?.body.filters) ? cohort.body.filters.properties : undefined);
  const nested = flat.filter((p) => p.type === 'cohort').flatMap((p) => cohortProperties(context, Number(p.value), seen));
  return [...flat, ...nested];
}

/**
 * `validate_filters`: person-aggregated conditions use person, cohort and flag properties (a flag
 * by `flag_evaluates_to`), group-aggregated ones only that group's properties; a variant override
 * names a variant; a cohort exists (deleted or not) and filters on no events, nor do the cohorts
 * it names.
 */
function checkProperties(filters: Record<string, unknown>, context: KindContext): SandboxResponse | undefined {
  const properties = propertiesOf(filters);
  const aggregation = filters.aggregation_group_type_index;
  if (aggregation === undefined || aggregation === null) {
    if (!properties.every((p) => ['person', 'cohort', 'flag'].includes(String(p.type)))) return invalid('Filters are not valid (can only use person and cohort properties)');
    if (!properties.every((p) => p.type !== 'flag' || p.operator === 'flag_evaluates_to')) return invalid("Flag properties must use the 'flag_evaluates_to' operator");
  } else if (!properties.every((p) => p.type === 'group' && p.group_type_index === aggregation)) return invalid('Filters are not valid (can only use group properties)');
  const variants = isRecord(filters.multivariate) && Array.isArray(filters.multivariate.variants) ? filters.multivariate.variants.filter(isRecord).map((v) => v.key) : [];
  const groups = Array.isArray(filters.groups) ? filters.groups.filter(isRecord) : [];
  if (groups.some((group) => typeof group.variant === 'string' && group.variant !== '' && !variants.includes(group.variant))) return invalid('Filters are not valid (variant override does not exist)');
  for (const property of properties.filter((p) => p.type === 'cohort')) {
    const cohort = context.objects.get('cohorts', Number(property.value));
    if (cohort === undefined) return invalid(`Cohort with id ${String(property.value)} does not exist`, 'cohort_does_not_exist');
    if (cohortProperties(context, cohort.id).some((p) => p.type === 'behavioral')) {
      return invalid(`Cohort '${String(cohort.body.name)}' with behavioral filters cannot be used in feature flags.`, 'behavioral_cohort_found');
    }
  }
  return undefined;
}

function checkFilters(filters: unknown, context: KindContext): SandboxResponse | undefined {
  if (!isRecord(filters) || !Array.isArray(filters.groups) || filters.groups.length === 0) {
    return validationError('invalid_input', 'Feature flags must have at least one release condition group.', 'filters');
  }
  const variants = isRecord(filters.multivariate) && Array.isArray(filters.multivariate.variants) ? filters.multivariate.variants : undefined;
  if (variants !== undefined) {
    const total = variants.reduce<number>((sum, v) => sum + (isRecord(v) ? Number(v.rollout_percentage ?? 0) : 0), 0);
    if (total !== 100) return validationError('invalid_input', 'Invalid variant definitions: Variant rollout percentages must sum to 100.', 'filters');
  }
  const refusal = checkProperties(filters, context);
  if (refusal !== undefined) return refusal;
  for (const key of dependencies(filters)) {
    if (!/^\d+$/.test(key) || context.objects.get('feature_flags', Number(key)) === undefined) {
      return validationError('invalid_input', `Flag dependency references non-existent flag with ID ${key}`, 'filters');
    }
  }
  return undefined;
}

function makeUsageDashboard(context: KindContext, key: string): number {
  return context.objects.insert('dashboards', { name: `Generated Dashboard: ${key} Usage`, description: 'This dashboard was generated by the feature flag', pinned: true, filters: {}, tags: [] }).id;
}

export const flagRules: KindRules = {
  kind: 'feature_flags',
  resource: 'feature_flags',
  scope: 'feature_flag',
  readOnly: [...COMMON_READ_ONLY, 'version', 'last_modified_by', 'usage_dashboard', 'experiment_set', 'surveys', 'features', 'status', 'can_edit'],
  writeOnly: ['_should_create_usage_dashboard', '_create_in_folder', 'creation_context'],
  validate: (body, context, id) => {
    const key = body.key;
    if (typeof key !== 'string' || key === '') return validationError('required', 'This field is required.', 'key');
    if (!KEY_PATTERN.test(key)) return validationError('invalid_key', 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key');
    const others = context.objects.list('feature_flags', true).filter((row) => row.id !== id && row.body.key === key);
    if (others.some((row) => !row.deleted)) return validationError('unique', 'There is already a feature flag with this key.', 'key');
    for (const gone of others) context.objects.purge(gone);
    return checkFilters(body.filters, context);
  },
  apply: (row, written, context, created) => {
    if (!created || written._should_create_usage_dashboard === false) return row;
    return context.objects.update(row, { ...row.body, usage_dashboard: makeUsageDashboard(context, String(row.body.key)) });
  },
  render: (row: ConfigRow, context) => ({
    ...baseJson(row),
    active: row.body.active ?? true,
    usage_dashboard: row.body.usage_dashboard ?? null,
    experiment_set: context.objects
      .list('experiments')
      .filter((e) => e.body.feature_flag_id === row.id)
      .map((e) => e.id),
  }),
};

/** The flag an experiment or survey makes for itself. */
export function createOwnFlag(context: KindContext, key: string, filters: Record<string, unknown>, name: string): ConfigRow {
  return context.objects.insert('feature_flags', { key, name, filters, active: true });
}

/** A survey's targeting flag passes the flag serializer's checks, as PostHog makes it through that serializer. */
export function checkOwnFlagFilters(filters: Record<string, unknown>, context: KindContext): SandboxResponse | undefined {
  return checkFilters(filters, context);
}

export function flagSummary(context: KindContext, id: unknown): Record<string, unknown> | null {
  const flag = typeof id === 'number' ? context.objects.get('feature_flags', id) : undefined;
  return flag === undefined ? null : { id: flag.id, key: flag.body.key, name: flag.body.name ?? '', filters: flag.body.filters, active: flag.body.active ?? true, deleted: flag.deleted };
}
