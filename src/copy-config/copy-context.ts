/** What every step of a copy shares: both projects' endpoints, the record of past copies, the id maps, the options. */
import type { Reporter } from '../reporter.js';
import type { ConfigApi } from './config-api.js';
import type { CopyKind } from './config-kinds.js';
import type { CopyItem } from './copy-report.js';
import type { CopyState } from './copy-state.js';
import type { IdMaps, RefKind } from './remap-references.js';

export interface CopyOptions {
  dryRun: boolean;
  keepFlagState: boolean;
  overwrite: boolean;
}

export interface CopyContext {
  source: ConfigApi;
  dest: ConfigApi;
  state: CopyState;
  maps: { [K in keyof IdMaps]: Map<number, number> };
  /** Source insight variable ids to the destination's (matched by code name). */
  variables: ReadonlyMap<string, string>;
  options: CopyOptions;
  reporter: Reporter;
  signal: AbortSignal;
  nowMs: () => number;
  items: CopyItem[];
  /** Source ids of this kind whose destination copy was deleted by hand since (never made again, never referenced). */
  goneInDest: (kind: CopyKind) => Set<number>;
  /** Ids handed out in a dry run for objects that would be created (negative, so never a real id). */
  nextPlaceholder: () => number;
}

/** The kind a reference points at. */
export function kindOfRef(ref: RefKind): CopyKind | undefined {
  return (Object.keys(REF_KIND) as CopyKind[]).find((kind) => REF_KIND[kind] === ref);
}

export const REF_KIND: Readonly<Record<CopyKind, RefKind | undefined>> = {
  actions: 'action',
  cohorts: 'cohort',
  flags: 'flag',
  insights: 'insight',
  dashboards: 'dashboard',
  annotations: undefined,
  experiments: undefined,
  surveys: undefined,
};
