/**
 * The order kinds of staged rows are sent in. PostHog stores on each event a snapshot of its
 * person's and groups' properties as they are when the event is ingested, and a group exists
 * only once a `$groupidentify` made it. So by default group updates go first, then person
 * updates (with their `$anon_distinct_id` links), then the events, and last the users file's
 * `$set` values sent again for persons whose events carried `$set`s of their own (the last
 * `$set` processed wins). `--people-last` keeps the order of earlier versions: events first.
 * Within a kind, rows go in timestamp order. Pure.
 */
import { EventKind } from '../events/staged-event.js';

const PEOPLE_FIRST: readonly number[] = [EventKind.group, EventKind.person, EventKind.event, EventKind.reassert];
const PEOPLE_LAST: readonly number[] = [EventKind.event, EventKind.person, EventKind.group, EventKind.reassert];

export function sendOrder(peopleLast: boolean): readonly number[] {
  return peopleLast ? PEOPLE_LAST : PEOPLE_FIRST;
}

/** The default order, for readers that are not a run (a dry run follows its settings too). */
export const DEFAULT_SEND_ORDER = PEOPLE_FIRST;
