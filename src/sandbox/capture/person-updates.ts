/**
 * What one event does to its person, in PostHog's order: an `$identify` with
 * `$anon_distinct_id` (or `$create_alias` with `alias`) links the two ids first, merging two
 * persons when both exist, unless the other one is already identified
 * (`cannot_merge_already_identified`) or either id is one PostHog will not merge on
 * (`cannot_merge_with_illegal_distinct_id`); then `$set` (last processed wins), `$set_once`
 * (only keys the person lacks; a null counts as present) and `$unset` apply. The answer is the
 * person's id and properties after the event, the snapshot stored on the event.
 */
import { refusesToMergeOn } from './illegal-distinct-id.js';
import type { CapturedEvent } from './capture-parse.js';
import type { Person, PersonState } from './person-state.js';

type Obj = Record<string, unknown>;

export interface PersonSnapshot {
  /** Null for an event sent with `$process_person_profile: false`. */
  personId: number | null;
  properties: string;
}

const objectAt = (props: Obj, key: string): Obj => {
  const value = props[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
};

/** Applies the event's `$set_once`, `$set` and `$unset` to `properties`; whether anything changed. */
export function applyPropertyUpdates(properties: Obj, eventProps: Obj): boolean {
  let changed = false;
  for (const [key, value] of Object.entries(objectAt(eventProps, '$set_once'))) {
    if (properties[key] === undefined) [properties[key], changed] = [value, true];
  }
  for (const [key, value] of Object.entries(objectAt(eventProps, '$set'))) {
    if (JSON.stringify(properties[key]) !== JSON.stringify(value)) [properties[key], changed] = [value, true];
  }
  const unset = eventProps.$unset;
  const keys = Array.isArray(unset) ? unset.map(String) : Object.keys(objectAt(eventProps, '$unset'));
  for (const key of keys) {
    if (!Object.hasOwn(properties, key)) continue;
    delete properties[key];
    changed = true;
  }
  return changed;
}

interface EventAt {
  teamId: number;
  event: CapturedEvent;
}

/** The two ids an identify or alias event asks to link: [other, into]. */
function linkRequest(event: CapturedEvent): [string, string] | undefined {
  const props = event.properties;
  const alias = props.alias;
  if ((event.event === '$create_alias' || event.event === '$merge_dangerously') && alias !== undefined && alias !== null && alias !== '' && alias !== false) {
    return [String(alias), event.distinctId];
  }
  if (event.event === '$identify' && Object.hasOwn(props, '$anon_distinct_id')) return [String(props.$anon_distinct_id), event.distinctId];
  return undefined;
}

function mergePersons(state: PersonState, at: EventAt, into: Person, other: Person, ids: [string, string]): Person {
  if (other.isIdentified && at.event.event !== '$merge_dangerously') {
    state.warn(at.teamId, 'cannot_merge_already_identified', { sourcePersonDistinctId: ids[0], targetPersonDistinctId: ids[1], eventUuid: at.event.uuid }, at.event.timestamp);
    return into;
  }
  into.properties = { ...other.properties, ...into.properties };
  if (other.createdAt < into.createdAt) into.createdAt = other.createdAt;
  state.absorb(at.teamId, into, other);
  return into;
}

/** Links the ids of an identify or alias event; the person it leaves the event with, if any. */
function link(state: PersonState, at: EventAt): { person: Person; identified: true } | undefined {
  const ids = linkRequest(at.event);
  if (ids === undefined || ids[0] === ids[1]) return undefined;
  const [otherId, intoId] = ids;
  const illegal = [intoId, otherId].find(refusesToMergeOn);
  if (illegal !== undefined) {
    const details = { illegalDistinctId: illegal, otherDistinctId: illegal === intoId ? otherId : intoId, eventUuid: at.event.uuid };
    state.warn(at.teamId, 'cannot_merge_with_illegal_distinct_id', details, at.event.timestamp);
    return undefined;
  }
  const other = state.find(at.teamId, otherId);
  const into = state.find(at.teamId, intoId);
  if (other && !into) state.addDistinctId(at.teamId, other, intoId);
  else if (into && !other) state.addDistinctId(at.teamId, into, otherId);
  const props = at.event.properties;
  const person = other && into ? (other.id === into.id ? into : mergePersons(state, at, into, other, ids)) : (other ?? into);
  return { person: person ?? state.create(at.teamId, [intoId, otherId], { ...objectAt(props, '$set_once'), ...objectAt(props, '$set') }, true, at.event.timestamp), identified: true };
}

export function updatePerson(state: PersonState, teamId: number, event: CapturedEvent): PersonSnapshot {
  const props = event.properties;
  if (props.$process_person_profile === false) return { personId: null, properties: '{}' };
  const at = { teamId, event };
  const linked = link(state, at);
  let person = linked?.person ?? state.find(teamId, event.distinctId);
  if (person === undefined) {
    person = state.create(teamId, [event.distinctId], { ...objectAt(props, '$set_once'), ...objectAt(props, '$set') }, false, event.timestamp);
    return { personId: person.id, properties: JSON.stringify(person.properties) };
  }
  let changed = applyPropertyUpdates(person.properties, props);
  if (linked && !person.isIdentified) [person.isIdentified, changed] = [true, true];
  if (changed || linked) state.save(person);
  return { personId: person.id, properties: JSON.stringify(person.properties) };
}
