/**
 * What export-source does to one row before it is written, in order: the mapping may drop it
 * (an event mapped to null), the filters may leave it out, the transform may change it, drop
 * it or make several events of it, and the event rules check what comes out. Pure: the
 * transform arrives as a function (see stage-sources/transform-module.ts).
 */
import { buildEvent, type BuildOutcome, type CandidateEvent, type EventRules } from './build-event.js';
import type { NameMap } from './name-map.js';
import { problem, type RowProblem } from './reject-reasons.js';
import { rowSelector, skipReason, SKIPPED_BY_MAP, type RowFilters, type RowSelector } from './row-filters.js';
import { readReturned, transformView, type TransformView } from './transform-view.js';

/** A transform module as plain data: its file URL (which names its content) and its file name, for messages. */
export interface TransformSpec {
  url: string;
  name: string;
}

export interface RowTransform {
  name: string;
  fn: (event: TransformView) => unknown;
}

export interface RowSteps {
  selector?: RowSelector;
  transform?: RowTransform;
  /** The rules for what the transform returns: the mapping was applied before it, and is not applied again. */
  outputRules: EventRules;
}

export type EventOutcome = Extract<BuildOutcome, { type: 'event' }>;

export type RowOutcome = { type: 'events'; events: EventOutcome[] } | { type: 'skipped'; reason: string } | { type: 'rejected'; problem: RowProblem };

const NO_RENAMES: NameMap = { events: new Map(), properties: new Map() };

/** How long a message from the module may be in a reject. */
const MAX_MESSAGE_CHARS = 300;

/** The reason a row the transform dropped is counted under. */
export function droppedBy(transformName: string): string {
  return `transform ${transformName}`;
}

/** The steps of a run, or undefined when it has neither filters nor a transform (rows go straight to the rules). */
export function rowSteps(rules: EventRules, filters: RowFilters | undefined, transform: RowTransform | undefined): RowSteps | undefined {
  const selector = rowSelector(filters);
  if (selector === undefined && transform === undefined) return undefined;
  return { selector, transform, outputRules: { ...rules, nameMap: NO_RENAMES } };
}

function thrownMessage(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
  } catch {
    text = 'a value that cannot be shown';
  }
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}...` : text;
}

/** A problem of an event the transform returned, named as the transform's. */
function invalidReturn(name: string, p: RowProblem, index: number, count: number): RowProblem {
  const which = count > 1 ? `event ${index + 1} of ${count}, which the rules reject` : 'an event the rules reject';
  return problem('transform_invalid', p.field, `transform ${name} returned ${which}: ${p.message} (${p.reason})`);
}

function transformRow(candidate: CandidateEvent, rules: EventRules, steps: RowSteps, transform: RowTransform, source: TransformView['source']): RowOutcome {
  const view = transformView(candidate, rules, source);
  if (!('source' in view)) return { type: 'rejected', problem: view };
  let returned: unknown;
  try {
    returned = transform.fn(view);
  } catch (error) {
    return { type: 'rejected', problem: problem('transform_error', '', `transform ${transform.name} threw: ${thrownMessage(error)}`) };
  }
  const read = readReturned(returned, view, candidate, transform.name);
  if (!Array.isArray(read)) {
    // A promise's failure is its row's reject already: not an unhandled rejection too.
    void Promise.resolve(returned).catch(() => {});
    return { type: 'rejected', problem: read };
  }
  if (read.length === 0) return { type: 'skipped', reason: droppedBy(transform.name) };
  const events: EventOutcome[] = [];
  for (let i = 0; i < read.length; i++) {
    const outcome = buildEvent(read[i]!, steps.outputRules);
    if (outcome.type === 'rejected') return { type: 'rejected', problem: invalidReturn(transform.name, outcome.problem, i, read.length) };
    if (outcome.type === 'event') events.push(outcome);
  }
  return events.length === 0 ? { type: 'skipped', reason: droppedBy(transform.name) } : { type: 'events', events };
}

/** One row through the steps: its events, or why it was skipped or rejected. */
export function stageRow(candidate: CandidateEvent, rules: EventRules, steps: RowSteps, source: TransformView['source']): RowOutcome {
  const reason = skipReason(candidate, rules, steps.selector);
  if (reason !== undefined) return { type: 'skipped', reason };
  if (steps.transform !== undefined) return transformRow(candidate, rules, steps, steps.transform, source);
  const outcome = buildEvent(candidate, rules);
  if (outcome.type === 'event') return { type: 'events', events: [outcome] };
  return outcome.type === 'rejected' ? outcome : { type: 'skipped', reason: SKIPPED_BY_MAP };
}
