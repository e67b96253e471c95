/**
 * Group properties seen on events (Amplitude's `group_properties`): for each group, which
 * version of its properties an event carried and when. They are not part of the event PostHog
 * receives; after staging, a pass turns each change of version, in time order, into a
 * `$groupidentify` (see passes/group-updates.ts). Pure.
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
 * Observations are kept per (group, version, UTC hour): only the first and last sighting of a
 * version in an hour. First and last combine across pieces and files (the earliest of the
 * earliest, the latest of the latest), so what is kept, and so the change points, depend only on
 * the events staged, not on how files were split or the order they came in. Only flips back and
 * forth inside one hour lose their middle; the last sighting of every hour is always kept, so the
 * state a group ends each hour with is right.
 */
export const OBSERVATION_BUCKET_MS = 3_600_000;

export function observationBucket(timestampMs: number): number {
  return Math.floor(timestampMs / OBSERVATION_BUCKET_MS);
}

/** True when `a` comes after `b` (time, then uuid: the order the group pass reads them in). */
export function observedAfter(a: { timestampMs: number; uuid: Uint8Array }, b: { timestampMs: number; uuid: Uint8Array }): boolean {
  return a.timestampMs > b.timestampMs || (a.timestampMs === b.timestampMs && Buffer.compare(a.uuid, b.uuid) > 0);
}

/** A piece's observations with only the first and last of each (group, version, hour) kept. */
export function firstAndLast(observations: readonly GroupObservation[]): GroupObservation[] {
  const ends = new Map<string, { first: GroupObservation; last: GroupObservation }>();
  for (const o of observations) {
    const id = `${o.type}\u0000${o.key}\u0000${Buffer.from(o.version).toString('hex')}\u0000${observationBucket(o.timestampMs)}`;
    const seen = ends.get(id);
    if (seen === undefined) ends.set(id, { first: o, last: o });
    else if (observedAfter(seen.first, o)) seen.first = o;
    else if (observedAfter(o, seen.last)) seen.last = o;
  }
  const out: GroupObservation[] = [];
  for (const { first, last } of ends.values()) out.push(...(first === last ? [first] : [first, last]));
  return out;
}
