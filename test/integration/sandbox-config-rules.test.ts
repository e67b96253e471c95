/**
 * The sandbox's configuration endpoints refuse and answer what PostHog's serializers do: the
 * rules `copy-config` meets on a real instance (flags, cohorts, surveys, annotations,
 * experiments, restricted dashboards), each checked over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import { apiCaller, type ApiCall } from '../helpers/api-call.js';
import { configSandbox, list, one, patch, post, type ConfigSandbox, type Json } from '../helpers/config-sandbox.js';

describe('sandbox configuration endpoints, as PostHog', () => {
  let side: ConfigSandbox;
  let member: ApiCall;
  const refusal = async (resource: string, body: Json, id?: number): Promise<[number, string]> => {
    const reply = await side.api(id === undefined ? 'POST' : 'PATCH', `/api/projects/1/${resource}/${id === undefined ? '' : `${id}/`}`, 'owner', body);
    return [reply.status, reply.json<{ detail: string }>().detail];
  };

  beforeAll(async () => {
    side = await configSandbox();
    const key = sandboxPersonalKey(side.sandbox.store, 'member-all');
    member = apiCaller(
      () => side.sandbox.url,
      () => key,
    );
  });

  afterAll(async () => {
    await member.close();
    await side.close();
  });

  it('checks a flag filters as the flag serializer does', async () => {
    const onEvents = await post(side.api, 'cohorts', {
      name: 'Did sign up',
      filters: { properties: { type: 'AND', values: [{ type: 'behavioral', key: 'signup', event_type: 'events', value: 'performed_event', time_value: 30, time_interval: 'day' }] } },
    });
    const nesting = await post(side.api, 'cohorts', { name: 'Nests it', filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: onEvents.id }] } } });
    const flag = (key: string, filters: Json) => refusal('feature_flags', { key, _should_create_usage_dashboard: false, filters });
    const condition = (properties: Json[], extra: Json = {}) => ({ groups: [{ properties, rollout_percentage: 100 }], ...extra });
    expect(await flag('a', condition([{ type: 'cohort', key: 'id', value: nesting.id }]))).toEqual([400, "Cohort 'Nests it' with behavioral filters cannot be used in feature flags."]);
    expect(await flag('b', condition([{ type: 'cohort', key: 'id', value: 999 }]))).toEqual([400, 'Cohort with id 999 does not exist']);
    expect(await flag('c', condition([{ type: 'group', group_type_index: 0, key: 'plan', value: 'pro' }]))).toEqual([400, 'Filters are not valid (can only use person and cohort properties)']);
    expect(await flag('d', condition([{ type: 'person', key: 'plan', value: 'pro' }], { aggregation_group_type_index: 0 }))).toEqual([400, 'Filters are not valid (can only use group properties)']);
    expect(await flag('e', condition([{ type: 'group', group_type_index: 1, key: 'plan', value: 'pro' }], { aggregation_group_type_index: 0 }))).toEqual([
      400,
      'Filters are not valid (can only use group properties)',
    ]);
    expect(await flag('f', { groups: [{ properties: [], rollout_percentage: 100, variant: 'nope' }] })).toEqual([400, 'Filters are not valid (variant override does not exist)']);
  });

  it('an experiment reuses a flag only with control as its first variant', async () => {
    const variants = (first: string) => ({
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: {
        variants: [
          { key: first, rollout_percentage: 50 },
          { key: first === 'control' ? 'test' : 'control', rollout_percentage: 50 },
        ],
      },
    });
    await post(side.api, 'feature_flags', { key: 'plain', _should_create_usage_dashboard: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    await post(side.api, 'feature_flags', { key: 'test-first', _should_create_usage_dashboard: false, filters: variants('test') });
    await post(side.api, 'feature_flags', { key: 'control-first', _should_create_usage_dashboard: false, filters: variants('control') });
    expect(await refusal('experiments', { name: 'On plain', feature_flag_key: 'plain' })).toEqual([400, 'Feature flag is not eligible for experiments.']);
    expect(await refusal('experiments', { name: 'On test first', feature_flag_key: 'test-first' })).toEqual([400, 'Feature flag must have control as the first variant.']);
    expect((await post(side.api, 'experiments', { name: 'On control first', feature_flag_key: 'control-first' })).feature_flag.key).toBe('control-first');
  });

  it('fills a cohort filters on read, refuses a query with filters, and takes an empty static cohort', async () => {
    const fromQuery = await post(side.api, 'cohorts', { name: 'Q', is_static: true, query: { kind: 'HogQLQuery', query: 'select 1' } });
    expect(fromQuery.filters).toEqual({ properties: {} });
    expect(await refusal('cohorts', { name: 'Both', is_static: true, query: fromQuery.query, filters: fromQuery.filters })).toEqual([400, 'Cannot set both query and filters at the same time.']);
    expect(await refusal('cohorts', { name: 'Dynamic', query: fromQuery.query })).toEqual([400, 'Cannot create a dynamic cohort with a query. Set is_static to true.']);
    expect((await post(side.api, 'cohorts', { name: 'Empty', is_static: true })).count).toBe(0);
    const group = (value: Json) => ({ properties: { type: 'AND', values: [value] } });
    expect(await refusal('cohorts', { name: 'No operator', filters: group({ type: 'person', key: 'plan', value: 'pro' }) })).toEqual([400, 'Missing required keys for person filter: operator']);
    expect(await refusal('cohorts', { name: 'Odd key', filters: group({ type: 'person', key: 'plan', value: 'pro', operator: 'exact', colour: 'red' }) })).toEqual([
      400,
      'Extra inputs are not permitted: properties.values.0.colour',
    ]);
    expect(await refusal('cohorts', { name: 'Flat', filters: { type: 'AND', values: [] } })).toEqual([400, "Must contain a 'properties' key with type and values"]);
  });

  it('keeps survey names unique, merges targeting into the survey flag, removes it on request, and links actions by id', async () => {
    const action = await post(side.api, 'actions', { name: 'Clicked', steps: [{ event: 'click' }] });
    const targeting = (value: string) => ({ groups: [{ properties: [{ type: 'person', key: 'plan', value }], rollout_percentage: 50 }] });
    const survey = await post(side.api, 'surveys', {
      name: 'Poll',
      type: 'popover',
      questions: [{ type: 'open', question: 'Why?' }],
      conditions: { actions: { values: [{ id: action.id, name: 'old name' }] } },
      targeting_flag_filters: targeting('pro'),
    });
    expect(survey.conditions.actions.values.map((a: Json) => [a.id, a.name])).toEqual([[action.id, 'Clicked']]);
    expect(await refusal('surveys', { name: 'Poll', type: 'popover', questions: [] })).toEqual([400, 'There is already a survey with this name.']);
    const updated = await patch(side.api, 'surveys', survey.id, { targeting_flag_filters: targeting('free') });
    expect(updated.targeting_flag.id).toBe(survey.targeting_flag.id);
    expect(updated.targeting_flag.filters.groups[0].properties[0].value).toBe('free');
    const removed = await patch(side.api, 'surveys', survey.id, { remove_targeting_flag: true });
    expect(removed.targeting_flag).toBeNull();
    expect((await list(side.api, 'feature_flags')).some((f) => f.id === survey.targeting_flag.id)).toBe(false);
  });

  it('lists an organization annotation in every project of the organization, and takes the recording scope', async () => {
    const shared = await post(side.api, 'annotations', { content: 'Offsite', date_marker: '2025-01-01T00:00:00Z', scope: 'organization' });
    await post(side.api, 'annotations', { content: 'Ours', date_marker: '2025-01-01T00:00:00Z', scope: 'project' });
    await post(side.api, 'annotations', { content: 'Replay', date_marker: '2025-01-01T00:00:00Z', scope: 'recording', recording_id: 'abc' });
    expect((await list(side.api, 'annotations', 2)).map((a) => a.content)).toEqual(['Offsite']);
    expect((await one(side.api, 'annotations', shared.id, 2)).content).toBe('Offsite');
  });

  it('answers an insight saved with legacy filters as the query they convert to', async () => {
    const insight = await post(side.api, 'insights', {
      name: 'Old style',
      filters: { insight: 'TRENDS', events: [{ id: '$pageview', order: 1 }], actions: [{ id: 7, type: 'actions', order: 0 }], interval: 'week', breakdown: 'plan', breakdown_type: 'person' },
    });
    expect(insight.filters).toEqual({});
    expect(insight.query).toEqual({
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        series: [
          { kind: 'ActionsNode', id: 7 },
          { kind: 'EventsNode', event: '$pageview' },
        ],
        breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
        interval: 'week',
      },
    });
  });

  it('refuses an edit of a restricted dashboard to a member who did not make it', async () => {
    const locked = await post(side.api, 'dashboards', { name: 'Locked', restriction_level: 37 });
    const reply = await member('PATCH', `/api/projects/1/dashboards/${locked.id}/`, 'member', { name: 'Mine now' });
    expect([reply.status, reply.json<{ detail: string }>().detail]).toEqual([403, "You don't have edit permissions for this dashboard."]);
    const open = await post(side.api, 'dashboards', { name: 'Open' });
    expect((await member('PATCH', `/api/projects/1/dashboards/${open.id}/`, 'member', { name: 'Open to all' })).status).toBe(200);
  });
});
