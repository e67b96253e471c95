/**
 * `migrate copy-config` end to end: a source sandbox whose objects reference each other in
 * every way the command remaps, copied into a second sandbox through the built CLI; then a
 * rerun that changes nothing, a source edit carried over, a hand edit in the destination left
 * alone (and replaced with --overwrite), a dry run that changes nothing, and a plan's 402.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxStore } from '../../src/sandbox/sandbox-store.js';
import type { ApiCall } from '../helpers/api-call.js';
import { byName, configSandbox, insertPerson, list, one, post, type ConfigSandbox, type Json } from '../helpers/config-sandbox.js';
import { insertGroupType } from '../helpers/management-sandbox.js';
import { runCli } from '../helpers/run-cli.js';

/** The source project: every kind, every kind of reference. */
async function buildSource(api: ApiCall, store: SandboxStore): Promise<Json> {
  insertGroupType(store, 1, 0, 'company');
  insertGroupType(store, 1, 1, 'team');
  for (const id of ['u1', 'u2', 'u3']) insertPerson(store, 1, id);
  const signedUp = await post(api, 'actions', { name: 'Signed up', steps: [{ event: 'signup' }] });
  const purchased = await post(api, 'actions', { name: 'Purchased', steps: [{ event: 'purchase', url: '/checkout', url_matching: 'contains' }] });
  const active = await post(api, 'cohorts', {
    name: 'Active',
    filters: { properties: { type: 'AND', values: [{ type: 'behavioral', key: signedUp.id, event_type: 'actions', value: 'performed_event', time_value: 30, time_interval: 'day' }] } },
  });
  const activePaying = await post(api, 'cohorts', {
    name: 'Active and paying',
    filters: {
      properties: {
        type: 'AND',
        values: [
          { type: 'cohort', key: 'id', value: active.id },
          { type: 'person', key: 'plan', value: 'pro', operator: 'exact' },
        ],
      },
    },
  });
  const pro = await post(api, 'cohorts', { name: 'Pro', filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] } } });
  const persons = (await api('GET', '/api/projects/1/persons/', 'owner')).json<{ results: Json[] }>().results;
  const beta = await post(api, 'cohorts', { name: 'Beta testers', is_static: true, _create_static_person_ids: persons.map((p) => p.uuid) });
  // PostHog takes no cohort that filters on events in a flag, and an experiment's flag has `control` first.
  const flag = await post(api, 'feature_flags', {
    key: 'beta',
    name: 'Beta',
    active: true,
    filters: {
      groups: [{ properties: [{ type: 'cohort', key: 'id', value: pro.id }], rollout_percentage: 50 }],
      multivariate: {
        variants: [
          { key: 'control', rollout_percentage: 50 },
          { key: 'test', rollout_percentage: 50 },
        ],
      },
    },
    _should_create_usage_dashboard: false,
  });
  const dependent = await post(api, 'feature_flags', {
    key: 'beta-plus',
    name: 'Beta plus',
    active: true,
    _should_create_usage_dashboard: false,
    filters: { groups: [{ properties: [{ type: 'flag', key: String(flag.id), operator: 'flag_evaluates_to', value: true }], rollout_percentage: 100 }] },
  });
  await post(api, 'feature_flags', {
    key: 'company-beta',
    name: 'Company beta',
    _should_create_usage_dashboard: false,
    filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ type: 'group', group_type_index: 0, key: 'plan', value: 'pro', operator: 'exact' }], rollout_percentage: 100 }] },
  });
  const trends = await post(api, 'insights', {
    name: 'Purchases by cohort',
    query: {
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        series: [{ kind: 'ActionsNode', id: purchased.id, name: 'Purchased' }],
        properties: { type: 'AND', values: [{ type: 'AND', values: [{ type: 'cohort', key: 'id', value: active.id }] }] },
        breakdownFilter: { breakdown_type: 'cohort', breakdown: [activePaying.id, 'all'] },
      },
    },
  });
  const hogql = await post(api, 'insights', {
    name: 'Raw',
    query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: `select count() from events where matchesAction(${signedUp.id})` } },
  });
  const legacy = await post(api, 'insights', {
    name: 'Legacy',
    filters: { insight: 'TRENDS', actions: [{ id: signedUp.id, type: 'actions' }], properties: [{ type: 'cohort', key: 'id', value: active.id }], aggregation_group_type_index: 1 },
  });
  const dashboard = await post(api, 'dashboards', { name: 'Growth', description: 'weekly', filters: {} });
  await api('PATCH', `/api/projects/1/insights/${trends.id}/`, 'owner', { dashboards: [dashboard.id] });
  await api('PATCH', `/api/projects/1/insights/${hogql.id}/`, 'owner', { dashboards: [dashboard.id] });
  const tiles = (await one(api, 'dashboards', dashboard.id)).tiles as Json[];
  await api('PATCH', `/api/projects/1/dashboards/${dashboard.id}/`, 'owner', {
    tiles: [
      { id: tiles.find((t) => t.insight?.id === trends.id)!.id, layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } }, color: 'blue' },
      { id: tiles.find((t) => t.insight?.id === hogql.id)!.id, layouts: { sm: { x: 6, y: 0, w: 6, h: 5 } }, color: null },
      { text: { body: 'Read me first' }, layouts: { sm: { x: 0, y: 5, w: 12, h: 2 } }, color: 'green' },
    ],
  });
  await post(api, 'annotations', { content: 'Launch', date_marker: '2025-03-01T00:00:00Z', scope: 'dashboard_item', dashboard_item: trends.id });
  await post(api, 'annotations', { content: 'Dashboard note', date_marker: '2025-03-02T00:00:00Z', scope: 'dashboard', dashboard_id: dashboard.id });
  await post(api, 'experiments', { name: 'Beta test', feature_flag_key: 'beta', metrics: [{ kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'ActionsNode', id: signedUp.id } }] });
  await post(api, 'surveys', {
    name: 'NPS',
    type: 'popover',
    questions: [{ type: 'rating', question: 'How likely?' }],
    linked_flag_id: flag.id,
    targeting_flag_filters: { groups: [{ properties: [{ type: 'cohort', key: 'id', value: pro.id }], rollout_percentage: 100 }] },
    start_date: '2025-02-01T00:00:00Z',
  });
  return { signedUp, purchased, active, activePaying, pro, beta, flag, dependent, trends, hogql, legacy, dashboard };
}

describe('copy-config between two sandboxes', () => {
  let from: ConfigSandbox;
  let to: ConfigSandbox;
  let config: string;
  let dir: string;
  let source: Json;
  const copy = (...args: string[]) => runCli(['copy-config', '--from', 'old', '--to', 'new', '--config', config, '--state', join(dir, 'state.db'), ...args], { cwd: dir });

  beforeAll(async () => {
    from = await configSandbox();
    to = await configSandbox();
    // The destination knows the same group types, under other indexes, and two of the three members.
    insertGroupType(to.sandbox.store, 1, 0, 'team');
    insertGroupType(to.sandbox.store, 1, 1, 'company');
    for (const id of ['u1', 'u2']) insertPerson(to.sandbox.store, 1, id);
    source = await buildSource(from.api, from.sandbox.store);
    dir = mkdtempSync(join(tmpdir(), 'copy-config-'));
    config = join(dir, 'migrate.config.json');
    const project = (url: string, key: string) => ({ role: 'test', host: url, projectId: 1, personalApiKey: key });
    writeFileSync(config, JSON.stringify({ projects: { old: project(from.sandbox.url, from.key), new: project(to.sandbox.url, to.key) } }));
  });

  afterAll(async () => {
    await from.close();
    await to.close();
  });

  it('a dry run prints the plan and changes nothing', async () => {
    const run = await copy('--dry-run');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Plan (dry run: nothing was changed)');
    expect(run.stdout).toMatch(/actions\s+2\s+0\s+0/);
    expect(await list(to.api, 'actions')).toEqual([]);
  });

  it('copies every object with every reference pointing at the copies', async () => {
    const run = await copy('--json');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { items: Json[] };
    const actions = await list(to.api, 'actions');
    const signedUp = byName(actions, 'Signed up');
    const purchased = byName(actions, 'Purchased');
    expect(purchased.steps).toEqual([{ event: 'purchase', url: '/checkout', url_matching: 'contains' }]);
    const cohorts = await list(to.api, 'cohorts');
    const active = byName(cohorts, 'Active');
    expect(active.filters.properties.values[0]).toMatchObject({ key: signedUp.id, event_type: 'actions' });
    expect(byName(cohorts, 'Active and paying').filters.properties.values[0]).toEqual({ type: 'cohort', key: 'id', value: active.id });
    const beta = byName(cohorts, 'Beta testers');
    expect(beta.is_static).toBe(true);
    expect(beta.count).toBe(2);
    expect(report.items.find((i) => i.name === 'Beta testers')?.warnings?.[0]).toMatch(/1 of its 3 members have no person in the destination/);

    const flags = await list(to.api, 'feature_flags');
    // The survey made its own targeting flag; the source's was not copied as a flag.
    expect(flags.map((f) => f.key).sort()).toEqual(['beta', 'beta-plus', 'company-beta', expect.stringMatching(/^survey-targeting-/)]);
    const flag = byName(flags, 'beta');
    expect(flag.active).toBe(false);
    expect(flag.usage_dashboard).toBeNull();
    expect(flag.filters.groups[0].properties[0].value).toBe(byName(cohorts, 'Pro').id);
    const dependent = byName(flags, 'beta-plus');
    expect(dependent.filters.groups[0].properties[0].key).toBe(String(flag.id));
    const company = byName(flags, 'company-beta');
    expect([company.filters.aggregation_group_type_index, company.filters.groups[0].properties[0].group_type_index]).toEqual([1, 1]);

    const insights = await list(to.api, 'insights');
    const trends = byName(insights, 'Purchases by cohort');
    expect(trends.query.source.series[0].id).toBe(purchased.id);
    expect(trends.query.source.properties.values[0].values[0].value).toBe(active.id);
    expect(trends.query.source.breakdownFilter.breakdown).toEqual([byName(cohorts, 'Active and paying').id, 'all']);
    // PostHog answers an insight saved with legacy filters as the query they convert to.
    const legacy = byName(insights, 'Legacy');
    expect(legacy.filters).toEqual({});
    expect(legacy.query.source.series[0]).toMatchObject({ kind: 'ActionsNode', id: signedUp.id });
    expect(legacy.query.source.properties.values[0].values[0].value).toBe(active.id);
    expect(legacy.query.source.aggregation_group_type_index).toBe(0);
    expect(report.items.find((i) => i.name === 'Raw')?.warnings?.[0]).toMatch(/HogQL names an id.*matchesAction\(/);

    const dashboards = await list(to.api, 'dashboards');
    expect(dashboards.map((d) => d.name)).toEqual(['Growth']);
    const tiles = (await one(to.api, 'dashboards', dashboards[0]!.id)).tiles as Json[];
    expect(tiles.map((t) => [t.insight?.name ?? null, t.text?.body ?? null, t.layouts.sm, t.color]).sort()).toEqual(
      [
        ['Purchases by cohort', null, { x: 0, y: 0, w: 6, h: 5 }, 'blue'],
        ['Raw', null, { x: 6, y: 0, w: 6, h: 5 }, null],
        [null, 'Read me first', { x: 0, y: 5, w: 12, h: 2 }, 'green'],
      ].sort(),
    );
    const annotations = await list(to.api, 'annotations');
    expect(byName(annotations, 'Launch').dashboard_item).toBe(trends.id);
    expect(byName(annotations, 'Dashboard note').dashboard_id).toBe(dashboards[0]!.id);

    const experiment = (await list(to.api, 'experiments'))[0]!;
    expect(experiment.feature_flag.id).toBe(flag.id);
    expect(experiment.metrics[0].source.id).toBe(signedUp.id);
    const survey = (await list(to.api, 'surveys'))[0]!;
    expect(survey.linked_flag.id).toBe(flag.id);
    expect(survey.targeting_flag.filters.groups[0].properties[0].value).toBe(byName(cohorts, 'Pro').id);
    expect(survey.start_date).toBeNull();
  });

  it('a second run changes nothing', async () => {
    const before = await Promise.all(['actions', 'cohorts', 'feature_flags', 'insights', 'dashboards', 'annotations', 'experiments', 'surveys'].map((r) => list(to.api, r)));
    const run = await copy('--json');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { items: Json[] };
    expect(new Set(report.items.map((i) => i.outcome))).toEqual(new Set(['unchanged', 'skipped']));
    expect(report.items.filter((i) => i.outcome === 'skipped').map((i) => i.reason)).toEqual([expect.stringMatching(/made this flag for a survey/)]);
    const after = await Promise.all(['actions', 'cohorts', 'feature_flags', 'insights', 'dashboards', 'annotations', 'experiments', 'surveys'].map((r) => list(to.api, r)));
    expect(after).toEqual(before);
  });

  it('carries a source edit over, and leaves a hand edit in the destination alone unless --overwrite', async () => {
    await from.api('PATCH', `/api/projects/1/actions/${source.purchased.id}/`, 'owner', { name: 'Purchased (any)' });
    const destTrends = byName(await list(to.api, 'insights'), 'Purchases by cohort');
    await to.api('PATCH', `/api/projects/1/insights/${destTrends.id}/`, 'owner', { name: 'Our own name' });
    await from.api('PATCH', `/api/projects/1/insights/${source.trends.id}/`, 'owner', { description: 'changed in the source' });

    const run = await copy();
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/insight \d+ "Purchases by cohort" \(now \d+\): edited there: changed in the destination since the copy/);
    expect(run.stdout).toMatch(/actions\s+0\s+1\s+1\s+0/);
    expect((await list(to.api, 'actions')).map((a) => a.name).sort()).toEqual(['Purchased (any)', 'Signed up']);
    expect((await one(to.api, 'insights', destTrends.id)).name).toBe('Our own name');

    const overwrite = await copy('--overwrite', '--only', 'insights');
    expect(overwrite.code).toBe(0);
    const replaced = await one(to.api, 'insights', destTrends.id);
    expect([replaced.name, replaced.description]).toEqual(['Purchases by cohort', 'changed in the source']);
  });

  it('reports what the destination plan refuses (402) and goes on', async () => {
    const paywalled = await configSandbox({ api: { paywalled: ['experiments'] } });
    try {
      const cfg = join(dir, 'paywalled.config.json');
      const project = (url: string, key: string) => ({ role: 'test', host: url, projectId: 1, personalApiKey: key });
      writeFileSync(cfg, JSON.stringify({ projects: { old: project(from.sandbox.url, from.key), new: project(paywalled.sandbox.url, paywalled.key) } }));
      const run = await runCli(['copy-config', '--from', 'old', '--to', 'new', '--config', cfg, '--state', join(dir, 'paywalled.db'), '--only', 'actions,cohorts,flags,experiments', '--json'], {
        cwd: dir,
      });
      const report = JSON.parse(run.stdout) as { items: Json[]; notes: string[] };
      expect(report.items.filter((i) => i.kind === 'experiments').map((i) => [i.outcome, i.reason])).toEqual([['refused', expect.stringMatching(/plan does not include experiments \(402\)/)]]);
      // That destination has no group types yet: the flag aggregated by company waits for them.
      expect(report.items.filter((i) => i.kind === 'flags').map((i) => [i.name, i.outcome, i.reason])).toEqual([
        ['Targeting flag for survey NPS', 'skipped', expect.stringMatching(/made this flag for a survey/)],
        ['beta', 'created', undefined],
        ['beta-plus', 'created', undefined],
        ['company-beta', 'skipped', 'it references group type 0, which was not copied'],
      ]);
      expect(report.notes).toEqual([expect.stringMatching(/group type "company" \(index 0\) does not exist in the destination/), expect.stringMatching(/group type "team"/)]);
      expect(report.items.filter((i) => i.kind === 'actions' && i.outcome === 'created')).toHaveLength(2);
      expect(run.code).toBe(0);
    } finally {
      await paywalled.close();
    }
  });
});
