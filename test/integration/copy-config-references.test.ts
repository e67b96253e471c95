/**
 * `migrate copy-config` through the built CLI on references that would still point at the
 * source (group type indexes of breakdowns, a survey's action conditions, a flag's holdout,
 * copies deleted by hand in the destination), on what PostHog refuses or would lose (a cohort
 * from a query, fields left behind, a flag switched on by hand, a launched experiment), and on
 * an organization's annotations, which both projects of one organization list.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import { byName, configSandbox, list, one, patch, post, writeCopyConfig, type ConfigSandbox, type Json } from '../helpers/config-sandbox.js';
import { insertGroupType } from '../helpers/management-sandbox.js';
import { runCli } from '../helpers/run-cli.js';

const SAMPLING_FROM = '2099-01-01T00:00:00Z';

describe('copy-config: references and fields PostHog would keep from the source', () => {
  let from: ConfigSandbox;
  let to: ConfigSandbox;
  let dir: string;
  let config: string;
  const source: Json = {};
  const copy = async (...args: string[]): Promise<{ code: number | null; report: { items: Json[]; notes: string[] }; stderr: string }> => {
    const run = await runCli(['copy-config', '--from', 'old', '--to', 'new', '--config', config, '--state', join(dir, 'state.db'), '--json', ...args], { cwd: dir });
    return { code: run.code, report: JSON.parse(run.stdout) as { items: Json[]; notes: string[] }, stderr: run.stderr };
  };
  const item = (items: Json[], name: string): Json => items.find((i) => i.name === name) ?? {};

  beforeAll(async () => {
    from = await configSandbox();
    to = await configSandbox();
    insertGroupType(from.sandbox.store, 1, 0, 'company');
    insertGroupType(from.sandbox.store, 1, 1, 'team');
    insertGroupType(to.sandbox.store, 1, 0, 'team');
    insertGroupType(to.sandbox.store, 1, 1, 'company');
    // The destination holds an action of its own under the id the source's action has.
    const decoy = await post(to.api, 'actions', { name: 'Someone else', steps: [{ event: 'other' }] });
    await post(to.api, 'insight_variables', { name: 'Other', type: 'Number', default_value: 1 });
    source.signedUp = await post(from.api, 'actions', { name: 'Signed up', steps: [{ event: 'signup' }] });
    expect(decoy.id).toBe(source.signedUp.id);
    source.paying = await post(from.api, 'cohorts', { name: 'Paying', filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] } } });
    source.fromQuery = await post(from.api, 'cohorts', { name: 'From a query', is_static: true, query: { kind: 'HogQLQuery', query: 'select person_id from persons' } });
    source.beta = await post(from.api, 'feature_flags', {
      key: 'beta',
      active: true,
      has_encrypted_payloads: true,
      _should_create_usage_dashboard: false,
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 50 },
          ],
        },
        payloads: { test: '{"secret":1}' },
        holdout_groups: [{ properties: [], rollout_percentage: 10, variant: 'holdout-77' }],
      },
    });
    source.byCompany = await post(from.api, 'insights', {
      name: 'By company',
      query: {
        kind: 'InsightVizNode',
        source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup' }], breakdownFilter: { breakdown_type: 'group', breakdown: 'name', breakdown_group_type_index: 0 } },
      },
    });
    const country = await post(from.api, 'insight_variables', { name: 'Country', type: 'String', default_value: 'FR' });
    const inSql = (value: string) => ({ [country.id]: { variableId: country.id, code_name: 'country', value } });
    await post(from.api, 'insights', {
      name: 'By country',
      query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: 'select count() from events where properties.country = {variables.country}', variables: inSql('FR') } },
    });
    source.board = await post(from.api, 'dashboards', {
      name: 'Companies',
      filters: { breakdown_filter: { breakdown_type: 'group', breakdown: 'name', breakdown_group_type_index: 0 } },
      variables: inSql('DE'),
    });
    source.note = await post(from.api, 'annotations', { content: 'Replay note', date_marker: '2025-03-01T00:00:00Z', scope: 'recording', is_emoji: true, emoji: '🎉', recording_id: '0192d000-aaaa' });
    source.experiment = await post(from.api, 'experiments', { name: 'Beta test', feature_flag_key: 'beta', start_date: '2025-02-01T00:00:00Z' });
    source.survey = await post(from.api, 'surveys', {
      name: 'NPS',
      type: 'popover',
      schedule: 'recurring',
      questions: [{ type: 'rating', question: 'How likely?' }],
      conditions: { actions: { values: [{ id: source.signedUp.id, name: 'Signed up' }] } },
      translations: { fr: { name: 'NPS fr' } },
      enable_partial_responses: true,
      response_sampling_start_date: SAMPLING_FROM,
      response_sampling_interval_type: 'week',
      response_sampling_interval: 1,
      response_sampling_limit: 50,
      linked_insight_id: source.byCompany.id,
      linked_flag_id: source.beta.id,
      targeting_flag_filters: { groups: [{ properties: [{ type: 'cohort', key: 'id', value: source.paying.id }], rollout_percentage: 100 }] },
    });
    dir = mkdtempSync(join(tmpdir(), 'copy-config-refs-'));
    config = writeCopyConfig(dir, { url: from.sandbox.url, key: from.key }, { url: to.sandbox.url, key: to.key });
  });

  afterAll(async () => {
    await from.close();
    await to.close();
  });

  let first: Awaited<ReturnType<typeof copy>>;

  it('copies every object of a source PostHog accepts', async () => {
    first = await copy();
    expect(first.report.items.filter((i) => i.outcome !== 'created' && i.outcome !== 'skipped')).toEqual([]);
    expect(first.code).toBe(0);
  });

  it('rewrites the group type index of a group breakdown, in an insight and in a dashboard', async () => {
    expect(byName(await list(to.api, 'insights'), 'By company').query.source.breakdownFilter.breakdown_group_type_index).toBe(1);
    expect(byName(await list(to.api, 'dashboards'), 'Companies').filters.breakdown_filter.breakdown_group_type_index).toBe(1);
  });

  it('makes the insight variable in the destination and names it by its new id in SQL insights and dashboards', async () => {
    const country = byName(await list(to.api, 'insight_variables'), 'Country');
    expect([country.code_name, country.type, country.default_value]).toEqual(['country', 'String', 'FR']);
    const inDest = (value: string) => ({ [country.id]: { variableId: country.id, code_name: 'country', value } });
    expect(byName(await list(to.api, 'insights'), 'By country').query.source.variables).toEqual(inDest('FR'));
    expect(byName(await list(to.api, 'dashboards'), 'Companies').variables).toEqual(inDest('DE'));
    expect(first.report.notes).toContain('insight variable "Country" created');
  });

  it("links a survey's display conditions to the copied action, not the destination's action of the same id", async () => {
    const signedUp = byName(await list(to.api, 'actions'), 'Signed up');
    const survey = byName(await list(to.api, 'surveys'), 'NPS');
    expect(survey.conditions.actions.values.map((a: Json) => [a.id, a.name])).toEqual([[signedUp.id, 'Signed up']]);
  });

  it("carries a survey's schedule, translations, partial responses, response sampling and linked insight", async () => {
    const survey = byName(await list(to.api, 'surveys'), 'NPS');
    expect(survey.linked_insight_id).toBe(byName(await list(to.api, 'insights'), 'By company').id);
    expect([survey.schedule, survey.translations, survey.enable_partial_responses]).toEqual(['recurring', { fr: { name: 'NPS fr' } }, true]);
    expect([survey.response_sampling_start_date, survey.response_sampling_interval_type, survey.response_sampling_interval, survey.response_sampling_limit]).toEqual([SAMPLING_FROM, 'week', 1, 50]);
  });

  it("keeps a flag's payloads encrypted and leaves out its holdout conditions, with a warning", async () => {
    const flag = byName(await list(to.api, 'feature_flags'), 'beta');
    expect(flag.has_encrypted_payloads).toBe(true);
    expect(flag.filters.holdout_groups).toEqual([]);
    expect(item(first.report.items, 'beta').warnings).toEqual([expect.stringMatching(/holdout conditions \(holdout-77\) are left out/)]);
  });

  it('copies a cohort made from a query, and an annotation of a recording with its emoji flag', async () => {
    expect(byName(await list(to.api, 'cohorts'), 'From a query').query.kind).toBe('HogQLQuery');
    const note = byName(await list(to.api, 'annotations'), 'Replay note');
    expect([note.scope, note.is_emoji, note.recording_id]).toEqual(['recording', true, '0192d000-aaaa']);
  });

  it('makes an experiment a draft when its flag arrives off', async () => {
    expect(byName(await list(to.api, 'experiments'), 'Beta test').start_date ?? null).toBeNull();
  });

  it('removes in the destination a linked flag and a targeting removed in the source, and then rests', async () => {
    await patch(from.api, 'surveys', source.survey.id, { linked_flag_id: null, remove_targeting_flag: true });
    const first = await copy('--only', 'surveys');
    expect(item(first.report.items, 'NPS').outcome).toBe('updated');
    const survey = byName(await list(to.api, 'surveys'), 'NPS');
    expect([survey.linked_flag, survey.targeting_flag]).toEqual([null, null]);
    expect((await list(to.api, 'feature_flags')).map((f) => f.key)).toEqual(['beta']);
    const second = await copy('--only', 'surveys');
    expect(item(second.report.items, 'NPS').outcome).toBe('unchanged');
  });

  it('keeps a flag switched on by hand in the destination on, --overwrite or not', async () => {
    const flag = byName(await list(to.api, 'feature_flags'), 'beta');
    await patch(to.api, 'feature_flags', flag.id, { active: true });
    await patch(from.api, 'feature_flags', source.beta.id, { name: 'Beta, renamed' });
    const run = await copy('--overwrite', '--only', 'flags');
    expect(item(run.report.items, 'beta').outcome).toBe('updated');
    const after = await one(to.api, 'feature_flags', flag.id);
    expect([after.name, after.active]).toEqual(['Beta, renamed', true]);
  });

  it('never points a new object at a copy deleted by hand in the destination', async () => {
    const paying = byName(await list(to.api, 'cohorts'), 'Paying');
    await patch(to.api, 'cohorts', paying.id, { deleted: true });
    await post(from.api, 'feature_flags', {
      key: 'payers',
      _should_create_usage_dashboard: false,
      filters: { groups: [{ properties: [{ type: 'cohort', key: 'id', value: source.paying.id }], rollout_percentage: 100 }] },
    });
    const { report } = await copy('--only', 'flags');
    expect([item(report.items, 'payers').outcome, item(report.items, 'payers').reason]).toEqual(['skipped', expect.stringMatching(/cohort \d+, whose copy was deleted in the destination/)]);
    expect((await list(to.api, 'feature_flags')).map((f) => f.key)).not.toContain('payers');
    const withCohorts = await copy('--only', 'cohorts,flags');
    expect(item(withCohorts.report.items, 'Paying')).toMatchObject({ outcome: 'edited', reason: expect.stringMatching(/deleted in the destination since the copy/) });
    expect(item(withCohorts.report.items, 'payers').outcome).toBe('skipped');
  });
});

describe('copy-config: an organization annotation, listed by both projects of one organization', () => {
  let side: ConfigSandbox;
  let dir: string;
  let config: string;

  beforeAll(async () => {
    side = await configSandbox();
    await post(side.api, 'annotations', { content: 'Company offsite', date_marker: '2025-04-01T00:00:00Z', scope: 'organization' });
    await post(side.api, 'annotations', { content: 'Project release', date_marker: '2025-04-02T00:00:00Z', scope: 'project' });
    dir = mkdtempSync(join(tmpdir(), 'copy-config-org-'));
    config = writeCopyConfig(dir, { url: side.sandbox.url, key: side.key, projectId: 1 }, { url: side.sandbox.url, key: side.key, projectId: 2 });
  });

  afterAll(async () => {
    await side.close();
  });

  it('is never copied, on any run: the destination already shows it', async () => {
    for (let run = 0; run < 2; run++) {
      const result = await runCli(['copy-config', '--from', 'old', '--to', 'new', '--config', config, '--state', join(dir, 'state.db'), '--only', 'annotations'], { cwd: dir });
      expect(result.code).toBe(0);
    }
    const contents = (await list(side.api, 'annotations', 2)).map((a) => a.content).sort();
    expect(contents).toEqual(['Company offsite', 'Project release']);
    expect((await list(side.api, 'annotations', 1)).map((a) => a.content).sort()).toEqual(['Company offsite', 'Project release']);
  });
});

describe('copy-config: a 403 on one object', () => {
  let from: ConfigSandbox;
  let to: ConfigSandbox;
  let dir: string;

  beforeAll(async () => {
    from = await configSandbox();
    to = await configSandbox();
    dir = mkdtempSync(join(tmpdir(), 'copy-config-403-'));
  });

  afterAll(async () => {
    await from.close();
    await to.close();
  });

  it('fails that object and goes on with the others', async () => {
    const locked = await post(from.api, 'dashboards', { name: 'Locked', restriction_level: 37 });
    const open = await post(from.api, 'dashboards', { name: 'Open' });
    const state = join(dir, 'state.db');
    const asOwner = writeCopyConfig(dir, { url: from.sandbox.url, key: from.key }, { url: to.sandbox.url, key: to.key }, 'owner.json');
    expect((await runCli(['copy-config', '--from', 'old', '--to', 'new', '--config', asOwner, '--state', state], { cwd: dir })).code).toBe(0);
    await patch(from.api, 'dashboards', locked.id, { description: 'changed' });
    await patch(from.api, 'dashboards', open.id, { description: 'changed' });
    // A member of the destination project may not edit a dashboard its owner restricted.
    const member = sandboxPersonalKey(to.sandbox.store, 'member-all');
    const asMember = writeCopyConfig(dir, { url: from.sandbox.url, key: from.key }, { url: to.sandbox.url, key: member }, 'member.json');
    const run = await runCli(['copy-config', '--from', 'old', '--to', 'new', '--config', asMember, '--state', state, '--json'], { cwd: dir });
    const report = JSON.parse(run.stdout) as { items: Json[] };
    expect(report.items.map((i) => [i.name, i.outcome])).toEqual([
      ['Locked', 'failed'],
      ['Open', 'updated'],
    ]);
    expect(report.items[0]!.reason).toMatch(/edit permissions for this dashboard/);
    expect(run.code).toBe(8);
    expect(byName(await list(to.api, 'dashboards'), 'Open').description).toBe('changed');
  });
});
