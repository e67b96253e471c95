/** Actions, cohorts and annotations as the sandbox serves them. */
import { validationError } from '../api-errors.js';
import { baseJson, COMMON_READ_ONLY, uniqueAmongLive, type KindRules } from './config-kind.js';
import { cohortFiltersProblem } from './cohort-filters.js';
import { addStaticMembers, staticMemberCount } from './static-cohorts.js';

export const actionRules: KindRules = {
  kind: 'actions',
  resource: 'actions',
  scope: 'action',
  readOnly: [...COMMON_READ_ONLY, 'bytecode_error', 'is_calculating', 'is_action', 'last_calculated_at'],
  writeOnly: ['_create_in_folder', 'creation_context'],
  validate: (body, context, id) => {
    if (typeof body.name !== 'string' || body.name === '') return validationError('required', 'This field is required.', 'name');
    return uniqueAmongLive(context, 'actions', 'name', body.name, id, 'This project already has an action with this name');
  },
  render: (row) => ({ ...baseJson(row), is_action: true, steps: row.body.steps ?? [] }),
};

/** Python's truthiness of a JSON value, as the serializer tests it. */
function hasValue(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return typeof value !== 'object' || Object.keys(value).length > 0;
}

export const cohortRules: KindRules = {
  kind: 'cohorts',
  resource: 'cohorts',
  scope: 'cohort',
  readOnly: [...COMMON_READ_ONLY, 'version', 'pending_version', 'is_calculating', 'last_calculation', 'errors_calculating', 'last_error_message', 'count', 'experiment_set'],
  writeOnly: ['_create_static_person_ids', '_create_in_folder'],
  validate: (body, _context, id) => {
    if (typeof body.name !== 'string' || body.name === '') return validationError('required', 'This field is required.', 'name');
    if (body.filters !== undefined && body.filters !== null) {
      const problem = cohortFiltersProblem(body.filters, body.is_static === true);
      if (problem !== undefined) return validationError('invalid_input', problem, 'filters');
    }
    if (id === undefined && hasValue(body.query) && hasValue(body.filters)) return validationError('invalid_input', 'Cannot set both query and filters at the same time.', null);
    if (id === undefined && hasValue(body.query) && body.is_static !== true) return validationError('invalid_input', 'Cannot create a dynamic cohort with a query. Set is_static to true.', null);
    return undefined;
  },
  apply: (row, written, context) => {
    const ids = written._create_static_person_ids;
    // A static cohort may start empty (its persons added later), as `_create_static_person_ids` defaults to [].
    if (row.body.is_static !== true) return row;
    if (Array.isArray(ids)) {
      const added = addStaticMembers(context, row.id, ids);
      if (typeof added !== 'number') return added;
    }
    return row;
  },
  render: (row, context) => ({
    ...baseJson(row),
    // PostHog fills `filters` from the cohort's properties when it has none (a cohort made from a query).
    filters: hasValue(row.body.filters) ? row.body.filters : { properties: {} },
    count: row.body.is_static === true ? staticMemberCount(context, row.id) : null,
    is_calculating: false,
  }),
};

const ANNOTATION_SCOPES = ['project', 'organization', 'dashboard', 'dashboard_item', 'recording', 'tag'];

export const annotationRules: KindRules = {
  kind: 'annotations',
  resource: 'annotations',
  scope: 'annotation',
  readOnly: [...COMMON_READ_ONLY, 'insight_short_id', 'insight_name', 'insight_derived_name', 'dashboard_name'],
  // An organization's annotations are listed by every project of it.
  alsoVisible: (context) => context.objects.listInOtherProjects('annotations', context.organizationId, 'scope', 'organization'),
  validate: (body, context) => {
    if (body.scope !== undefined && !ANNOTATION_SCOPES.includes(String(body.scope))) return validationError('invalid_choice', `"${String(body.scope)}" is not a valid choice.`, 'scope');
    if (body.dashboard_item !== undefined && body.dashboard_item !== null && context.objects.get('insights', Number(body.dashboard_item)) === undefined) {
      return validationError('does_not_exist', `Invalid pk "${String(body.dashboard_item)}" - object does not exist.`, 'dashboard_item');
    }
    if (body.dashboard_id !== undefined && body.dashboard_id !== null && context.objects.get('dashboards', Number(body.dashboard_id)) === undefined) {
      return validationError('does_not_exist', `Invalid pk "${String(body.dashboard_id)}" - object does not exist.`, 'dashboard_id');
    }
    return undefined;
  },
  render: (row, context) => {
    const insight = typeof row.body.dashboard_item === 'number' ? context.objects.get('insights', row.body.dashboard_item) : undefined;
    return { ...baseJson(row), insight_short_id: insight?.body.short_id ?? null, insight_name: insight?.body.name ?? null };
  },
};
