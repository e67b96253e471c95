/**
 * One object: created when it was never copied; updated when its source changed since the
 * copy and the destination still holds what was written then; otherwise left alone, and said
 * why (unchanged, or changed or deleted by hand in the destination, unless --overwrite).
 */
import { KIND_NOUN, type CopyKind } from './config-kinds.js';
import type { ConfigObject, WriteResult } from './config-api.js';
import { contentHash, type BuiltBody } from './build-body.js';
import type { CopyContext } from './copy-context.js';
import type { CopyItem, CopyOutcome } from './copy-report.js';
import type { CopyRecord } from './copy-state.js';

export interface ObjectPlan {
  kind: CopyKind;
  source: ConfigObject;
  name: string;
  built: BuiltBody;
  sourceHash: string;
  /** Extra fields sent on create only (not part of the content). */
  createOnly?: Record<string, unknown> | (() => Promise<Record<string, unknown>>);
  /** The destination's content of an object as it answers, for the hand-edit check. */
  destContent: (dest: ConfigObject) => Promise<Record<string, unknown>>;
  /** Work after the object's own write (tiles, members); returns warnings. */
  after?: (destId: number, created: boolean) => Promise<string[]>;
  /** Work on an unchanged object that a later run can complete (members imported since); returns warnings. */
  reconcile?: (destId: number) => Promise<string[]>;
}

function item(plan: ObjectPlan, outcome: CopyOutcome, extra: Partial<CopyItem> = {}): CopyItem {
  const warnings = [...plan.built.warnings, ...(extra.warnings ?? [])];
  return { kind: plan.kind, sourceId: plan.source.id, name: plan.name, outcome, ...extra, ...(warnings.length > 0 ? { warnings } : {}) };
}

function refused(plan: ObjectPlan, result: Exclude<WriteResult, { ok: true }>): CopyItem {
  if (result.status === 402) return item(plan, 'refused', { reason: `the destination's plan does not include ${plan.kind} (402)` });
  return item(plan, 'failed', { reason: result.message });
}

async function finish(context: CopyContext, plan: ObjectPlan, destId: number, created: boolean): Promise<{ destHash: string; warnings: string[] }> {
  const warnings = plan.after === undefined ? [] : await plan.after(destId, created);
  const dest = await context.dest.get(plan.kind, destId);
  return { destHash: contentHash(await plan.destContent(dest)), warnings };
}

async function create(context: CopyContext, plan: ObjectPlan): Promise<CopyItem> {
  if (context.options.dryRun) return item(plan, 'created', { destId: context.nextPlaceholder() });
  const createOnly = typeof plan.createOnly === 'function' ? await plan.createOnly() : plan.createOnly;
  const result = await context.dest.create(plan.kind, { ...plan.built.body, ...plan.built.onCreate, ...createOnly });
  if (!result.ok) return refused(plan, result);
  const destId = result.object.id;
  const { destHash, warnings } = await finish(context, plan, destId, true);
  context.state.save({ kind: plan.kind, sourceId: plan.source.id, destId, sourceHash: plan.sourceHash, destHash }, context.nowMs());
  return item(plan, 'created', { destId, warnings });
}

/** The destination copy was deleted by hand: not made again, and no longer a target for references. */
function goneItem(context: CopyContext, plan: ObjectPlan, record: CopyRecord): CopyItem {
  context.goneInDest(plan.kind).add(plan.source.id);
  return item(plan, 'edited', { destId: record.destId, reason: `deleted in the destination since the copy (${KIND_NOUN[plan.kind]} ${record.destId}); not made again` });
}

async function update(context: CopyContext, plan: ObjectPlan, record: CopyRecord): Promise<CopyItem> {
  const dest = await context.dest.find(plan.kind, record.destId);
  if (dest === undefined || dest.deleted === true) return goneItem(context, plan, record);
  const noun = `${KIND_NOUN[plan.kind]} ${record.destId}`;
  const handEdited = contentHash(await plan.destContent(dest)) !== record.destHash;
  if (handEdited && !context.options.overwrite) {
    return item(plan, 'edited', { destId: record.destId, reason: `changed in the destination since the copy (${noun}); left alone (--overwrite replaces it)` });
  }
  if (context.options.dryRun) return item(plan, 'updated', { destId: record.destId });
  const result = await context.dest.update(plan.kind, record.destId, { ...plan.built.body, ...plan.built.onUpdate });
  if (!result.ok) return refused(plan, result);
  const { destHash, warnings } = await finish(context, plan, record.destId, false);
  context.state.save({ ...record, sourceHash: plan.sourceHash, destHash }, context.nowMs());
  return item(plan, 'updated', { destId: record.destId, warnings });
}

/** Copies one object whose references all resolved; returns what happened. */
export async function copyObject(context: CopyContext, plan: ObjectPlan, record: CopyRecord | undefined): Promise<CopyItem> {
  if (record === undefined) return create(context, plan);
  if (context.goneInDest(plan.kind).has(plan.source.id)) return goneItem(context, plan, record);
  if (record.sourceHash === plan.sourceHash) {
    const warnings = plan.reconcile === undefined || context.options.dryRun ? [] : await plan.reconcile(record.destId);
    return item(plan, 'unchanged', { destId: record.destId, warnings });
  }
  return update(context, plan, record);
}
