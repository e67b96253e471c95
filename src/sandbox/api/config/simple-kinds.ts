/** Actions, cohorts and annotations as the sandbox serves them. */
import { validationError } from '../api-errors.js';
import { baseJson, COMMON_READ_ONLY, uniqueAmongLive, type KindRules } from './config-kind.js';
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

export const cohortRules: KindRules = {
  kind: 'cohorts',
  resource: 'cohorts',
  scope: 'cohort',
  readOnly: [...COMMON_READ_ONLY, 'version', 'pending_version', 'is_calculating', 'last_calculation', 'errors_calculating', 'last_error_message', 'count', 'experiment_set'],
  writeOnly: ['_create_static_person_ids', '_create_in_folder'],
  validate: (body) => {
    if (typeof body.name !== 'string' || body.name === '') return validationError('required', 'This field is required.', 'name');
    return undefined;
  },
  apply: (row, written, context, created) => {
    const ids = written._create_static_person_ids;
    if (row.body.is_static !== true) return row;
    if (created && !Array.isArray(ids)) return validationError('invalid_input', 'Invalid source for static cohort', null);
    if (Array.isArray(ids)) {
      const added = addStaticMembers(context, row.id, ids);
      if (typeof added !== 'number') return added;
    }
    return row;
  },
  render: (row, context) => ({ ...baseJson(row), count: row.body.is_static === true ? staticMemberCount(context, row.id) : null, is_calculating: false }),
};

const ANNOTATION_SCOPES = ['project', 'organization', 'dashboard', 'dashboard_item', 'tag'];

export const annotationRules: KindRules = {
  kind: 'annotations',
  resource: 'annotations',
  scope: 'annotation',
  readOnly: [...COMMON_READ_ONLY, 'insight_short_id', 'insight_name', 'insight_derived_name', 'dashboard_name'],
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
