/**
 * Every reference a configuration object holds to another, rewritten from the source
 * project's ids to the destination's, wherever it sits: action ids (query nodes, legacy
 * entities, behavioral cohort filters), cohort ids (property filters, breakdowns), flag ids
 * (flag dependencies), insight and dashboard ids, and group type indexes (matched by the group
 * type's name). A reference with no counterpart is reported, never guessed; HogQL text that
 * names an id cannot be rewritten safely and is reported as a warning.
 */
export type RefKind = 'action' | 'cohort' | 'flag' | 'insight' | 'dashboard' | 'group type';

export interface IdMaps {
  action: ReadonlyMap<number, number>;
  cohort: ReadonlyMap<number, number>;
  flag: ReadonlyMap<number, number>;
  insight: ReadonlyMap<number, number>;
  dashboard: ReadonlyMap<number, number>;
  /** Source group type index to destination index, matched by name. */
  'group type': ReadonlyMap<number, number>;
}

export interface MissingReference {
  kind: RefKind;
  id: number;
}

export interface Remapped<T> {
  value: T;
  missing: MissingReference[];
  /** HogQL texts that seem to name an action or cohort id (copied unchanged). */
  hogql: string[];
}

const COHORT_FILTER_TYPES = ['cohort', 'precalculated-cohort', 'static-cohort'];
// `breakdown_group_type_index` sits in an insight's breakdownFilter and a dashboard's filters.breakdown_filter.
const GROUP_INDEX_KEYS = ['aggregation_group_type_index', 'group_type_index', 'math_group_type_index', 'breakdown_group_type_index'];
const HOGQL_ID = /\b(matchesAction|inCohort|notInCohort|cohort|action)\w*\s*\(\s*\d+|\bcohort_id\s*=\s*\d+|\baction_id\s*=\s*\d+/i;

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function asId(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

class Remapper {
  readonly missing: MissingReference[] = [];
  readonly hogql: string[] = [];

  constructor(private readonly maps: IdMaps) {}

  /** The destination id in the same type as the source value (a number stays a number, digits stay digits). */
  id(kind: RefKind, value: unknown): unknown {
    const id = asId(value);
    if (id === undefined) return value;
    const mapped = this.maps[kind].get(id);
    if (mapped === undefined) {
      if (!this.missing.some((m) => m.kind === kind && m.id === id)) this.missing.push({ kind, id });
      return value;
    }
    return typeof value === 'string' ? String(mapped) : mapped;
  }

  node(node: Node): Node {
    const out: Node = {};
    for (const [key, value] of Object.entries(node)) out[key] = this.walk(value);
    this.references(node, out);
    this.noteHogql(node);
    return out;
  }

  private references(node: Node, out: Node): void {
    if (node.kind === 'ActionsNode' && node.id !== undefined) out.id = this.id('action', node.id);
    if (node.type === 'actions' && node.id !== undefined) out.id = this.id('action', node.id);
    if (node.actionId !== undefined) out.actionId = this.id('action', node.actionId);
    if (COHORT_FILTER_TYPES.includes(String(node.type)) && node.key === 'id') out.value = this.id('cohort', node.value);
    if (node.type === 'behavioral' && node.event_type === 'actions') out.key = this.id('action', node.key);
    if (node.seq_event_type === 'actions' && node.seq_event !== undefined) out.seq_event = this.id('action', node.seq_event);
    if (node.type === 'flag' && node.key !== undefined) out.key = this.id('flag', node.key);
    if (node.breakdown_type === 'cohort') out.breakdown = this.cohortBreakdown(node.breakdown);
    for (const key of GROUP_INDEX_KEYS) if (typeof node[key] === 'number') out[key] = this.id('group type', node[key]);
  }

  private cohortBreakdown(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((entry) => (entry === 'all' ? entry : this.id('cohort', entry)));
    return value === 'all' ? value : this.id('cohort', value);
  }

  private noteHogql(node: Node): void {
    const texts = [node.kind === 'HogQLQuery' ? node.query : undefined, node.type === 'hogql' ? node.key : undefined, node.math_hogql];
    for (const text of texts) if (typeof text === 'string' && HOGQL_ID.test(text) && !this.hogql.includes(text)) this.hogql.push(text);
  }

  walk(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((entry) => this.walk(entry));
    return isNode(value) ? this.node(value) : value;
  }
}

/** Rewrites every reference inside `value` (a copy; the input is not changed). */
export function remapReferences<T>(value: T, maps: IdMaps): Remapped<T> {
  const remapper = new Remapper(maps);
  return { value: remapper.walk(value) as T, missing: remapper.missing, hogql: remapper.hogql };
}

/** One id outside any structure (an annotation's insight, a survey's linked flag). */
export function remapOne(kind: RefKind, id: unknown, maps: IdMaps): { value: unknown; missing?: MissingReference } {
  const remapper = new Remapper(maps);
  const value = remapper.id(kind, id);
  return { value, missing: remapper.missing[0] };
}

export function emptyMaps(): { [K in keyof IdMaps]: Map<number, number> } {
  return { action: new Map(), cohort: new Map(), flag: new Map(), insight: new Map(), dashboard: new Map(), 'group type': new Map() };
}

export function describeMissing(missing: readonly MissingReference[]): string {
  return missing.map((m) => `${m.kind} ${m.id}`).join(', ');
}
