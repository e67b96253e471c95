/**
 * `copy-config`: the work a project is made of (actions, cohorts, flags, insights, dashboards,
 * annotations, experiments, surveys), copied from one PostHog project to another in the order
 * of their references, every reference rewritten, each copy recorded so a rerun creates only
 * what is missing and carries over what changed in the source. Nothing in the destination is
 * ever deleted, and what was edited there by hand is left alone unless told otherwise.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { ManagementApi } from '../management/management-api.js';
import type { GroupType } from '../management/management-schemas.js';
import type { Reporter } from '../reporter.js';
import type { Clock } from '../util/clock.js';
import { ConfigApi } from './config-api.js';
import { COPY_KINDS, type CopyKind } from './config-kinds.js';
import { REF_KIND, type CopyContext, type CopyOptions } from './copy-context.js';
import { copyKind } from './copy-kind.js';
import type { CopyItem, CopyReport } from './copy-report.js';
import { CopyState } from './copy-state.js';
import { matchVariables } from './insight-variables.js';
import { emptyMaps } from './remap-references.js';

export interface CopyConfigInput {
  kinds: readonly CopyKind[];
  options: CopyOptions;
  /** The file that records what was copied (the staging file unless --state). */
  statePath: string;
}

export interface CopyConfigSides {
  source: ManagementApi;
  dest: ManagementApi;
  clock: Clock;
}

/** The run as a whole: ok, some objects not copied, or nothing achieved at all. */
export type CopyVerdict = 'ok' | 'partial' | 'nothing';

export interface CopyConfigResult extends CopyReport {
  verdict: CopyVerdict;
}

function sideKey(api: ManagementApi): string {
  return `${api.client.target.apiHost}#${api.client.target.projectId}`;
}

function openState(input: CopyConfigInput, key: { source: string; dest: string }): CopyState {
  // A dry run leaves no file behind where there was none.
  const path = input.options.dryRun && !existsSync(input.statePath) ? ':memory:' : input.statePath;
  return CopyState.open(path, key);
}

function groupTypeMap(source: readonly GroupType[], dest: readonly GroupType[], notes: string[]): Map<number, number> {
  const map = new Map<number, number>();
  for (const type of source) {
    const match = dest.find((d) => d.group_type === type.group_type);
    if (match === undefined)
      notes.push(`group type "${type.group_type}" (index ${type.group_type_index}) does not exist in the destination yet: objects that use it are skipped (import its groups first)`);
    else map.set(type.group_type_index, match.group_type_index);
  }
  return map;
}

/**
 * Ids taken from the record are checked against the destination: a copy deleted there by hand
 * since is no target for references (they would point at a deleted object, with no word).
 */
async function pruneGone(dest: ConfigApi, state: CopyState, kinds: readonly CopyKind[], maps: ReturnType<typeof emptyMaps>, notes: string[]): Promise<Map<CopyKind, Set<number>>> {
  const gone = new Map<CopyKind, Set<number>>();
  for (const kind of COPY_KINDS) {
    const records = state.records(kind);
    const set = new Set<number>();
    gone.set(kind, set);
    if (records.size === 0) continue;
    const live = new Set((await dest.list(kind)).filter((object) => object.deleted !== true).map((object) => object.id));
    for (const record of records.values()) {
      if (live.has(record.destId)) continue;
      set.add(record.sourceId);
      const refKind = REF_KIND[kind];
      if (refKind !== undefined) maps[refKind].delete(record.sourceId);
      if (refKind !== undefined && !kinds.includes(kind))
        notes.push(`${refKind} ${record.sourceId} was copied as ${record.destId}, which has been deleted in the destination since: objects that reference it are skipped`);
    }
  }
  return gone;
}

export function verdictOf(items: readonly CopyItem[]): CopyVerdict {
  const problems = items.filter((item) => item.outcome === 'failed' || item.outcome === 'refused' || item.outcome === 'skipped').length;
  if (problems === 0) return 'ok';
  return problems === items.length ? 'nothing' : 'partial';
}

export async function copyConfig(input: CopyConfigInput, sides: CopyConfigSides, reporter: Reporter, signal: AbortSignal): Promise<CopyConfigResult> {
  const key = { source: sideKey(sides.source), dest: sideKey(sides.dest) };
  if (key.source === key.dest) throw new UsageError('--from and --to name the same project: nothing to copy');
  const state = openState(input, key);
  try {
    const notes: string[] = [];
    const maps = emptyMaps();
    for (const kind of COPY_KINDS) {
      const refKind = REF_KIND[kind];
      if (refKind !== undefined) for (const record of state.records(kind).values()) maps[refKind].set(record.sourceId, record.destId);
    }
    const [sourceTypes, destTypes] = await Promise.all([sides.source.listGroupTypes(), sides.dest.listGroupTypes()]);
    for (const [from, to] of groupTypeMap(sourceTypes, destTypes, notes)) maps['group type'].set(from, to);
    const dest = new ConfigApi(sides.dest);
    const gone = await pruneGone(dest, state, input.kinds, maps, notes);
    const usesVariables = input.kinds.includes('insights') || input.kinds.includes('dashboards');
    const variables = usesVariables ? await matchVariables(sides.source, sides.dest, input.options.dryRun) : { ids: new Map<string, string>(), notes: [] };
    notes.push(...variables.notes);
    let placeholder = 0;
    const context: CopyContext = {
      source: new ConfigApi(sides.source),
      dest,
      state,
      maps,
      variables: variables.ids,
      options: input.options,
      reporter,
      signal,
      nowMs: () => sides.clock.now(),
      items: [],
      goneInDest: (kind) => gone.get(kind)!,
      nextPlaceholder: () => (placeholder -= 1),
    };
    for (const kind of COPY_KINDS) if (input.kinds.includes(kind)) await copyKind(context, kind);
    return { dryRun: input.options.dryRun, items: context.items, notes, verdict: verdictOf(context.items) };
  } finally {
    state.close();
  }
}
