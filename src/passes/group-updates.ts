/**
 * Group updates from the group properties events carry (Amplitude's `group_properties`): for
 * each group, in time order over the whole staging file, a `$groupidentify` (`$group_type`,
 * `$group_key`, `$group_set`) wherever its properties differ from the ones before, at the time of
 * the event that showed them, with a uuid made from the group, the properties and that time. A
 * 10M-event file with a few changes stages a few updates. Files in any order: a group seen in a
 * new file is worked out again, and updates no longer wanted are withdrawn unless delivered.
 * PostHog keeps five group types per project: updates are staged for the five seen first.
 */
import { canonicalJson } from '../json/canonical-json.js';
import { deriveUuidBytes } from '../events/stable-uuid.js';
import { EventKind, type StagedEvent } from '../events/staged-event.js';
import { groupDistinctId } from '../sources/people/group-record.js';
import type { DerivedRows } from '../staging/derived-rows.js';
import { dropOrphanObservations, groupTotals, groupTypesByAge, GroupTables, redoGroupTypes, type GroupRef, type GroupTotals, type Observation } from '../staging/group-store.js';
import type { ScanScope } from '../staging/pass-state.js';
import type { StagingStore } from '../staging/staging-store.js';
import { MAX_GROUP_TYPES } from '../posthog/limits.js';

const GROUPS_PER_TRANSACTION = 500;
/** Updates held before they are staged together (packed into blocks in time order, see DerivedRows.stageAll). */
const UPDATES_PER_WRITE = 4096;

export interface GroupPassResult {
  /** This run: updates staged and withdrawn. */
  staged: number;
  withdrawn: number;
  /** The whole staging file. */
  totals: GroupTotals;
  /** Group types beyond the five kept: their properties are not staged. */
  typesLeftOut: string[];
}

/** Where the properties change, in time order: the first observation, then each one whose version differs from the one before. Pure. */
export function changePoints(observations: Iterable<Observation>): Observation[] {
  const changes: Observation[] = [];
  let last: Buffer | undefined;
  for (const o of observations) {
    if (last?.equals(o.version)) continue;
    changes.push(o);
    last = o.version;
  }
  return changes;
}

export function groupUpdateEvent(group: GroupRef, version: Uint8Array, propertiesJson: string, timestampMs: number): StagedEvent {
  const identity = canonicalJson(['group properties', group.type, group.key, Buffer.from(version).toString('hex')]);
  return {
    uuid: deriveUuidBytes(identity, timestampMs),
    kind: EventKind.group,
    event: '$groupidentify',
    distinctId: groupDistinctId(group.type, group.key),
    timestampMs,
    propertiesJson: `{"$group_type":${JSON.stringify(group.type)},"$group_key":${JSON.stringify(group.key)},"$group_set":${propertiesJson}}`,
  };
}

type Counts = Pick<GroupPassResult, 'staged' | 'withdrawn'>;

/** Brings one group's staged updates in line; the updates to stage are added to `updates`. */
function settleGroup(tables: GroupTables, derived: DerivedRows, group: GroupRef, kept: boolean, counts: Counts, updates: StagedEvent[]): void {
  const wanted = new Map<string, StagedEvent & { version: Buffer }>();
  if (kept) {
    for (const change of changePoints(tables.observationsOf(group))) {
      const event = groupUpdateEvent(group, change.version, tables.propertiesOf(change.version), change.timestampMs);
      wanted.set(Buffer.from(event.uuid).toString('hex'), { ...event, version: change.version });
    }
  }
  for (const update of tables.updatesOf(group)) {
    const id = update.uuid.toString('hex');
    if (wanted.delete(id)) continue;
    const staged = derived.state(update.uuid);
    if (staged?.delivered) {
      tables.keepDeliveredUpdate(group, update.uuid);
      continue;
    }
    if (staged !== undefined) {
      derived.withdraw(staged.seq, 'replaced');
      counts.withdrawn++;
    }
    tables.forgetUpdate(group, update.uuid);
  }
  for (const { version, ...event } of wanted.values()) {
    updates.push(event);
    tables.recordUpdate(group, event.uuid, event.timestampMs, version);
  }
  tables.done(group);
}

export function runGroupPass(store: StagingStore, derived: DerivedRows, scope: ScanScope, previousTypes: readonly string[] | undefined): GroupPassResult & { groupTypes: string[] } {
  const types = groupTypesByAge(store);
  const kept = types.slice(0, MAX_GROUP_TYPES);
  store.transaction(() => {
    if (scope.rowsRemoved) dropOrphanObservations(store);
    const before = new Set(previousTypes ?? []);
    redoGroupTypes(store, previousTypes === undefined ? [] : [...types.filter((t) => kept.includes(t) !== before.has(t)), ...[...before].filter((t) => !types.includes(t))]);
  });
  const tables = new GroupTables(store);
  const counts: Counts = { staged: 0, withdrawn: 0 };
  const keptTypes = new Set(kept);
  for (let after: GroupRef = { type: '', key: '' }; ; ) {
    const groups = tables.dirty(after, GROUPS_PER_TRANSACTION);
    if (groups.length === 0) break;
    store.transaction(() => {
      const updates: StagedEvent[] = [];
      for (const group of groups) {
        settleGroup(tables, derived, group, keptTypes.has(group.type), counts, updates);
        if (updates.length >= UPDATES_PER_WRITE) counts.staged += derived.stageAll(updates.splice(0));
      }
      counts.staged += derived.stageAll(updates);
    });
    after = groups[groups.length - 1]!;
  }
  return { ...counts, totals: groupTotals(store), typesLeftOut: types.slice(MAX_GROUP_TYPES), groupTypes: kept };
}
