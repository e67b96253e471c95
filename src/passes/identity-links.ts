/**
 * Identity links, staged after the files of a run: before login an Amplitude user's events carry
 * only `device_id` and a Mixpanel user's `$device:<id>` (simplified ID merge); both vendors link
 * those to the user once the same device shows a user id. For each device, the first time in
 * time order over the whole staging file that it was seen with a user, an `$identify` is staged
 * (distinct_id the user, `$anon_distinct_id` the device, 1 ms before that event, a uuid made from
 * the two ids), so PostHog merges the device's anonymous person into the user's. Once per pair,
 * whatever the order files come in or how often they are staged: an earlier meeting found later
 * moves the link (if not yet delivered), a device that turns out shared or a kiosk gets its
 * undelivered link withdrawn (a delivered one is kept and reported: PostHog keeps it).
 */
import { canonicalJson } from '../json/canonical-json.js';
import { nameUuidBytes } from '../events/derived-uuids.js';
import { EventKind, type StagedEvent } from '../events/staged-event.js';
import type { DerivedRows } from '../staging/derived-rows.js';
import {
  clearNewPairs,
  collectPairs,
  exampleDevices,
  forgetPairs,
  identityTotals,
  IdentityTables,
  LINK_FORMATS,
  linkReads,
  mergeNewPairs,
  pairRowsWithdrawn,
  redecideAllDevices,
  scanPending,
  type DeviceRecord,
  type IdentityTotals,
} from '../staging/identity-store.js';
import type { ScanScope } from '../staging/pass-state.js';
import type { StagingStore } from '../staging/staging-store.js';
import { decideDevice } from './device-guards.js';

/**
 * Devices decided per transaction. Their links' uuids are random: the more a transaction holds,
 * the more of them share the pages of the uuid index it writes.
 */
const DEVICES_PER_TRANSACTION = 20_000;
/** Examples shown per kind of device. */
const EXAMPLES = 3;

export interface DeviceExample {
  device: string;
  users: number;
  firstUser: string | null;
  linkUser: string | null;
}

export interface IdentityPassResult {
  /** This run: links staged, withdrawn (device turned shared, a kiosk, or gone), moved to an earlier time. */
  staged: number;
  withdrawn: number;
  moved: number;
  /** The whole staging file. */
  totals: IdentityTotals;
  examples: Record<'shared' | 'kiosk' | 'placeholder' | 'kept', DeviceExample[]>;
}

export interface IdentityPassInput {
  scope: ScanScope;
  maxUsersPerDevice: number;
  /** The limit and the sources left out when the pass last ran (a change decides every device again). */
  previous: { maxUsersPerDevice?: number; linkSources?: string };
}

/** The uuid of the link of `device` to `user`: from the two ids only, whatever its time. */
function linkUuid(user: string, device: string): Uint8Array {
  return nameUuidBytes(canonicalJson(['identity link', user, device]));
}

export function linkEvent(user: string, device: string, timestampMs: number, uuid = linkUuid(user, device)): StagedEvent {
  return {
    uuid,
    kind: EventKind.person,
    event: '$identify',
    distinctId: user,
    timestampMs,
    propertiesJson: JSON.stringify({ $anon_distinct_id: device }),
  };
}

type Counts = Pick<IdentityPassResult, 'staged' | 'withdrawn' | 'moved'>;

/** A link to stage at the end of its transaction: kept small, as a transaction holds thousands. */
interface PendingLink {
  /** The uuid's bytes as latin1 text: sorts as the bytes do, far faster than Buffer.compare. */
  key: string;
  uuid: Uint8Array;
  user: string;
  device: string;
  ms: number;
}

/** Decides one device again and brings its staged link in line; returns its new record. */
function settleDevice(tables: IdentityTables, derived: DerivedRows, device: string, maxUsers: number, counts: Counts, links: PendingLink[]): DeviceRecord {
  const seen = tables.usersOf(device);
  const decision = decideDevice(device, seen, maxUsers);
  const before = tables.recordOf(device);
  const wanted = decision === 'linked' ? { user: seen.first!.user, ms: seen.first!.ms - 1 } : undefined;
  const record: DeviceRecord = { device, users: seen.users, firstUser: seen.first?.user ?? null, decision, linkUser: null, linkUuid: null, linkMs: null, keptDelivered: 0 };
  const staged = before?.linkUuid != null ? derived.state(before.linkUuid) : undefined;
  if (staged !== undefined) {
    const keep = wanted !== undefined && before!.linkUser === wanted.user;
    if (keep || staged.delivered) {
      Object.assign(record, { linkUser: before!.linkUser, linkUuid: before!.linkUuid, linkMs: staged.timestampMs, keptDelivered: keep ? 0 : 1 });
      if (keep && !staged.delivered && staged.timestampMs !== wanted.ms) {
        derived.moveTo(staged.seq, wanted.ms);
        record.linkMs = wanted.ms;
        counts.moved++;
      }
      return record;
    }
    derived.withdraw(staged.seq, wanted === undefined ? 'undone' : 'replaced');
    counts.withdrawn++;
  }
  if (wanted !== undefined) {
    const uuid = linkUuid(wanted.user, device);
    links.push({ key: Buffer.from(uuid.buffer, uuid.byteOffset, uuid.byteLength).toString('latin1'), uuid, user: wanted.user, device, ms: wanted.ms });
    Object.assign(record, { linkUser: wanted.user, linkUuid: uuid, linkMs: wanted.ms });
  }
  return record;
}

export function runIdentityPass(store: StagingStore, derived: DerivedRows, input: IdentityPassInput): IdentityPassResult & { linkSources: string } {
  const { reads, excluded } = linkReads(store);
  const linkReadIds = [...reads.amplitude, ...reads.mixpanel];
  // Pairs are recorded per read as rows are staged; they are drawn again from the rows when rows
  // that gave pairs were taken out (a first meeting may be later now, or gone), or when the
  // sources wanted changed. Rows of other sources taken out (a Heap dump replaced) change nothing.
  const removed = input.scope.readsUndone || pairRowsWithdrawn(store, linkReadIds, input.scope.withdrawnAfter);
  const redraw = removed || (!input.scope.firstRun && (input.previous.linkSources ?? '') !== excluded);
  store.transaction(() => {
    if (redraw) forgetPairs(store);
    if (input.previous.maxUsersPerDevice !== undefined && input.previous.maxUsersPerDevice !== input.maxUsersPerDevice) redecideAllDevices(store);
    // From the rows: all of them when redrawing; on a file staged before pairs were recorded,
    // the rows since the last pass, once. Otherwise the pairs recorded with the rows are merged.
    if (redraw || scanPending(store)) for (const format of LINK_FORMATS) collectPairs(store, format, reads[format], redraw ? 0 : input.scope.fromSeq);
    if (!redraw) mergeNewPairs(store, linkReadIds);
    clearNewPairs(store);
  });
  const tables = new IdentityTables(store);
  const counts: Counts = { staged: 0, withdrawn: 0, moved: 0 };
  for (let after = ''; ; ) {
    const devices = tables.dirty(after, DEVICES_PER_TRANSACTION);
    if (devices.length === 0) break;
    store.transaction(() => {
      const links: PendingLink[] = [];
      for (const device of devices) tables.saveRecord(settleDevice(tables, derived, device, input.maxUsersPerDevice, counts, links));
      // Claimed in uuid order: each link's uuid is random, and the uuid index outgrows the page
      // cache. Packed into blocks in time order by stageAll, in this transaction.
      links.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      counts.staged += derived.stageAll(links.map((l) => linkEvent(l.user, l.device, l.ms, l.uuid)));
      tables.decided(devices[0]!, devices[devices.length - 1]!);
    });
    after = devices[devices.length - 1]!;
  }
  const examples = {
    shared: exampleDevices(store, 'shared', EXAMPLES),
    kiosk: exampleDevices(store, 'kiosk', EXAMPLES),
    placeholder: exampleDevices(store, 'placeholder', EXAMPLES),
    kept: exampleDevices(store, 'kept', EXAMPLES),
  };
  return { ...counts, totals: identityTotals(store), examples, linkSources: excluded };
}
