/**
 * The plan for one source object of each kind: its body for the destination, its content hash,
 * how the destination's copy is compared, and what follows its write (a dashboard's tiles, a
 * static cohort's members).
 */
import type { ConfigObject } from './config-api.js';
import { buildBody, contentHash, contentOf } from './build-body.js';
import type { CopyKind } from './config-kinds.js';
import type { CopyContext } from './copy-context.js';
import type { ObjectPlan } from './copy-object.js';
import { copyTiles, tilesContent } from './dashboard-tiles.js';
import { addMissingMembers, destUuids, sourceMembers } from './static-members.js';

const FIRST_MEMBERS = 1000;

function nameOf(kind: CopyKind, object: ConfigObject): string {
  const name = kind === 'flags' ? object.key : kind === 'annotations' ? object.content : (object.name ?? object.derived_name);
  return typeof name === 'string' && name !== '' ? name : `#${object.id}`;
}

async function dashboardPlan(context: CopyContext, base: ObjectPlan, source: ConfigObject): Promise<ObjectPlan> {
  const tiles = tilesContent(source);
  return {
    ...base,
    sourceHash: contentHash(contentOf('dashboards', source, { tiles })),
    destContent: async (dest) => contentOf('dashboards', dest, { tiles: tilesContent(dest) }),
    after: (destId) => copyTiles(context, source, destId),
  };
}

async function staticCohortPlan(context: CopyContext, base: ObjectPlan, source: ConfigObject): Promise<ObjectPlan> {
  const members = await sourceMembers(context, source.id);
  return {
    ...base,
    // Looked up only when the cohort is created (never in a dry run, nor for a cohort copied before).
    createOnly: async () => ({ _create_static_person_ids: (await destUuids(context, members.slice(0, FIRST_MEMBERS))).uuids }),
    after: async (destId) => addMissingMembers(context, members, destId),
    // Members whose persons were imported after an earlier copy are added on every run.
    reconcile: async (destId) => addMissingMembers(context, members, destId),
  };
}

export async function planObject(context: CopyContext, kind: CopyKind, source: ConfigObject): Promise<ObjectPlan> {
  const built = buildBody(kind, source, context.maps, { keepFlagState: context.options.keepFlagState, todayIso: new Date(context.nowMs()).toISOString(), variables: context.variables });
  const base: ObjectPlan = {
    kind,
    source,
    name: nameOf(kind, source),
    built,
    sourceHash: contentHash(contentOf(kind, source)),
    destContent: async (dest) => contentOf(kind, dest),
    // A flag made by a copy never gets a usage dashboard of its own: the source's is copied as a dashboard.
    ...(kind === 'flags' ? { createOnly: { _should_create_usage_dashboard: false } } : {}),
  };
  if (kind === 'dashboards') return dashboardPlan(context, base, source);
  if (kind === 'cohorts' && source.is_static === true) return staticCohortPlan(context, base, source);
  return base;
}
