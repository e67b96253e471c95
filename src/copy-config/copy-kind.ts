/**
 * All objects of one kind, in passes: an object whose references to its own kind (a cohort in
 * a cohort, a flag depending on a flag) are not copied yet waits for the next pass; one that
 * names something that will not be copied is skipped and says what. What is copied enters the
 * id maps at once, for the objects and kinds after it.
 */
import type { ConfigObject } from './config-api.js';
import { KIND_NOUN, SELF_MADE_FLAG_PREFIXES, type CopyKind } from './config-kinds.js';
import { kindOfRef, REF_KIND, type CopyContext } from './copy-context.js';
import { copyObject } from './copy-object.js';
import type { CopyItem } from './copy-report.js';
import { planObject } from './object-plans.js';
import { describeMissing, type MissingReference } from './remap-references.js';

function selfMade(kind: CopyKind, object: ConfigObject): boolean {
  const key = object.key;
  return kind === 'flags' && typeof key === 'string' && SELF_MADE_FLAG_PREFIXES.some((prefix) => key.startsWith(prefix));
}

const SHARED_REASON = 'organization-wide: the destination project, of the same organization, already shows this very annotation';

/**
 * PostHog lists an organization's annotations in every project of it: one the destination lists
 * under the same id is the same annotation, not one to copy (a copy would be listed back by the
 * source on the next run, and copied again).
 */
async function sharedAnnotations(context: CopyContext, objects: readonly ConfigObject[]): Promise<Set<number>> {
  if (!objects.some((object) => object.scope === 'organization')) return new Set();
  // Ids coincide between instances by chance: the same annotation is the same id with the same text and date.
  const same = (a: ConfigObject, b: ConfigObject): boolean => a.id === b.id && a.content === b.content && a.date_marker === b.date_marker && b.scope === 'organization';
  const dest = await context.dest.list('annotations');
  return new Set(objects.filter((object) => object.scope === 'organization' && dest.some((d) => same(object, d))).map((object) => object.id));
}

async function readAll(context: CopyContext, kind: CopyKind): Promise<ConfigObject[]> {
  const listed = (await context.source.list(kind)).filter((object) => object.deleted !== true);
  // Lists leave tiles out (null): each dashboard is read on its own.
  if (kind !== 'dashboards') return listed.sort((a, b) => a.id - b.id);
  const full: ConfigObject[] = [];
  for (const dashboard of listed) full.push(await context.source.get('dashboards', dashboard.id));
  return full.sort((a, b) => a.id - b.id);
}

function skipped(kind: CopyKind, object: ConfigObject, reason: string): CopyItem {
  const name = typeof object.name === 'string' && object.name !== '' ? object.name : typeof object.key === 'string' ? object.key : `#${object.id}`;
  return { kind, sourceId: object.id, name, outcome: 'skipped', reason };
}

function missingReason(context: CopyContext, missing: readonly MissingReference[]): string {
  const isGone = (m: MissingReference): boolean => {
    const kind = kindOfRef(m.kind);
    return kind !== undefined && context.goneInDest(kind).has(m.id);
  };
  const gone = missing.filter(isGone);
  const never = missing.filter((m) => !isGone(m));
  const parts = [
    ...(never.length > 0 ? [`${describeMissing(never)}, which ${never.length === 1 ? 'was' : 'were'} not copied`] : []),
    ...(gone.length > 0 ? [`${describeMissing(gone)}, whose copy ${gone.length === 1 ? 'was' : 'were'} deleted in the destination`] : []),
  ];
  return `it references ${parts.join('; and ')}`;
}

/** One pass over the objects still waiting; returns those that must wait for another pass. */
async function pass(context: CopyContext, kind: CopyKind, waiting: ConfigObject[], listedIds: ReadonlySet<number>): Promise<ConfigObject[]> {
  const refKind = REF_KIND[kind];
  const records = context.state.records(kind);
  const later: ConfigObject[] = [];
  for (const object of waiting) {
    context.signal.throwIfAborted();
    const plan = await planObject(context, kind, object);
    const ownKind = plan.built.missing.filter((m) => m.kind === refKind && listedIds.has(m.id) && m.id !== object.id && !context.goneInDest(kind).has(m.id));
    if (ownKind.length > 0) {
      later.push(object);
      continue;
    }
    if (plan.built.missing.length > 0) {
      context.items.push({ ...skipped(kind, object, missingReason(context, plan.built.missing)), name: plan.name });
      continue;
    }
    const done = await copyObject(context, plan, records.get(object.id));
    context.items.push(done);
    const usable = done.destId !== undefined && done.outcome !== 'failed' && done.outcome !== 'refused' && !context.goneInDest(kind).has(object.id);
    if (refKind !== undefined && usable) context.maps[refKind].set(object.id, done.destId!);
    context.reporter.progress?.(`${KIND_NOUN[kind]} ${object.id}: ${done.outcome}`);
  }
  return later;
}

export async function copyKind(context: CopyContext, kind: CopyKind): Promise<void> {
  const objects = await readAll(context, kind);
  const listedIds = new Set(objects.map((object) => object.id));
  const shared = kind === 'annotations' ? await sharedAnnotations(context, objects) : new Set<number>();
  let waiting: ConfigObject[] = [];
  for (const object of objects) {
    if (shared.has(object.id)) context.items.push({ ...skipped(kind, object, SHARED_REASON), outcome: 'unchanged' });
    else if (selfMade(kind, object)) context.items.push(skipped(kind, object, 'PostHog made this flag for a survey or product tour; the copy of its survey makes its own'));
    else waiting.push(object);
  }
  while (waiting.length > 0) {
    const later = await pass(context, kind, waiting, listedIds);
    if (later.length === waiting.length) {
      for (const object of later) context.items.push(skipped(kind, object, `it depends on another ${KIND_NOUN[kind]} in a loop, or on one that could not be copied`));
      return;
    }
    waiting = later;
  }
}
