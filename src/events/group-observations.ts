/**
 * Group properties seen on events (Amplitude's `group_properties`): for each group, which
 * version of its properties an event carried and when. They are not part of the event PostHog
 * receives; after staging, a pass turns each change of version, in time order, into a
 * `$groupidentify` (see stage-sources/passes/group-updates.ts). Pure.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '../json/canonical-json.js';

/** What a row says about one group. */
export interface GroupProperties {
  type: string;
  key: string;
  properties: Record<string, unknown>;
}

/** One observation, ready to store: the group, the event's time and uuid, and the version's hash and JSON. */
export interface GroupObservation {
  type: string;
  key: string;
  timestampMs: number;
  /** The event's uuid (16 bytes): an observation counts only while its event is staged. */
  uuid: Uint8Array;
  /** 16 bytes of SHA-1 of the canonical JSON of the properties. */
  version: Uint8Array;
  propertiesJson: string;
}

export function observe(group: GroupProperties, timestampMs: number, uuid: Uint8Array): GroupObservation {
  const propertiesJson = canonicalJson(group.properties);
  const version = hash('sha1', propertiesJson, 'buffer').subarray(0, 16);
  return { type: group.type, key: group.key, timestampMs, uuid: Uint8Array.from(uuid), version, propertiesJson };
}

/**
 * A piece's observations with only the first and last of each (group, version) kept: enough
 * to find where the version starts and where it was last seen, and one to two rows per group
 * and piece rather than one per event. A version seen again after another inside one piece keeps
 * its first and last time, so a change back is still found; only repeated flips within one piece
 * lose their middle.
 */
export function firstAndLast(observations: readonly GroupObservation[]): GroupObservation[] {
  const ends = new Map<string, { first: GroupObservation; last: GroupObservation }>();
  const later = (a: GroupObservation, b: GroupObservation): boolean => a.timestampMs > b.timestampMs || (a.timestampMs === b.timestampMs && Buffer.compare(a.uuid, b.uuid) > 0);
  for (const o of observations) {
    const id = `${o.type}\u0000${o.key}\u0000${Buffer.from(o.version).toString('hex')}`;
    const seen = ends.get(id);
    if (seen === undefined) ends.set(id, { first: o, last: o });
    else if (later(seen.first, o)) seen.first = o;
    else if (later(o, seen.last)) seen.last = o;
  }
  const out: GroupObservation[] = [];
  for (const { first, last } of ends.values()) out.push(...(first === last ? [first] : [first, last]));
  return out;
}
