/** Where references sit in configuration objects, and how each is rewritten or reported. */
import { describe, expect, it } from 'vitest';
import { parseKinds } from '../../src/copy-config/config-kinds.js';
import { verdictOf } from '../../src/copy-config/copy-config.js';
import { emptyMaps, remapReferences } from '../../src/copy-config/remap-references.js';

const maps = emptyMaps();
maps.action.set(1, 101);
maps.cohort.set(2, 202);
maps.flag.set(3, 303);
maps['group type'].set(0, 1);

describe('remapReferences', () => {
  it.each<[string, unknown, unknown]>([
    ['an ActionsNode', { kind: 'ActionsNode', id: 1 }, { kind: 'ActionsNode', id: 101 }],
    ['a legacy action entity', { actions: [{ id: 1, type: 'actions' }] }, { actions: [{ id: 101, type: 'actions' }] }],
    ['an actionId', { actionId: 1 }, { actionId: 101 }],
    ['a cohort property', { type: 'cohort', key: 'id', value: 2 }, { type: 'cohort', key: 'id', value: 202 }],
    ['a cohort id written as digits', { type: 'cohort', key: 'id', value: '2' }, { type: 'cohort', key: 'id', value: '202' }],
    ['a precalculated cohort', { type: 'precalculated-cohort', key: 'id', value: 2 }, { type: 'precalculated-cohort', key: 'id', value: 202 }],
    ['a behavioral action filter', { type: 'behavioral', key: 1, event_type: 'actions' }, { type: 'behavioral', key: 101, event_type: 'actions' }],
    ['a behavioral event filter is left alone', { type: 'behavioral', key: '1', event_type: 'events' }, { type: 'behavioral', key: '1', event_type: 'events' }],
    ['a sequence action', { seq_event: 1, seq_event_type: 'actions' }, { seq_event: 101, seq_event_type: 'actions' }],
    ['a flag dependency', { type: 'flag', key: '3', operator: 'flag_evaluates_to' }, { type: 'flag', key: '303', operator: 'flag_evaluates_to' }],
    ['a cohort breakdown', { breakdown_type: 'cohort', breakdown: [2, 'all'] }, { breakdown_type: 'cohort', breakdown: [202, 'all'] }],
    ['a group type index', { aggregation_group_type_index: 0, math_group_type_index: 0 }, { aggregation_group_type_index: 1, math_group_type_index: 1 }],
    ['an event property is not an id', { type: 'event', key: 'id', value: 2 }, { type: 'event', key: 'id', value: 2 }],
  ])('%s', (_name, input, output) => {
    const result = remapReferences(input, maps);
    expect(result.value).toEqual(output);
    expect(result.missing).toEqual([]);
  });

  it('reports what has no counterpart, once, and leaves it as it was', () => {
    const result = remapReferences(
      {
        series: [
          { kind: 'ActionsNode', id: 9 },
          { kind: 'ActionsNode', id: 9 },
        ],
        properties: [{ type: 'cohort', key: 'id', value: 8 }],
      },
      maps,
    );
    expect(result.missing).toEqual([
      { kind: 'action', id: 9 },
      { kind: 'cohort', id: 8 },
    ]);
    expect(result.value).toEqual({
      series: [
        { kind: 'ActionsNode', id: 9 },
        { kind: 'ActionsNode', id: 9 },
      ],
      properties: [{ type: 'cohort', key: 'id', value: 8 }],
    });
  });

  it.each([
    ['select count() from events where matchesAction(12)', true],
    ['select * from persons where inCohort(4)', true],
    ['select count() from events', false],
  ])('HogQL %j is reported: %s', (query, reported) => {
    expect(remapReferences({ kind: 'HogQLQuery', query }, maps).hogql).toEqual(reported ? [query] : []);
  });
});

describe('--only and verdicts', () => {
  it.each<[string | undefined, string[], string[]]>([
    [undefined, ['actions', 'cohorts', 'flags', 'insights', 'dashboards', 'annotations', 'experiments', 'surveys'], []],
    ['surveys,actions', ['actions', 'surveys'], []],
    ['feature_flags, nope', ['flags'], ['nope']],
  ])('--only %j', (list, kinds, unknown) => {
    expect(parseKinds(list)).toEqual({ kinds, unknown });
  });

  it('nothing achieved is not ok; unchanged is', () => {
    const item = (outcome: 'unchanged' | 'skipped' | 'created') => ({ kind: 'actions' as const, sourceId: 1, name: 'a', outcome });
    expect(verdictOf([item('unchanged')])).toBe('ok');
    expect(verdictOf([item('skipped')])).toBe('nothing');
    expect(verdictOf([item('skipped'), item('created')])).toBe('partial');
  });
});
