/**
 * A vendor's session as a session PostHog can read. PostHog's sessions table keeps only UUIDv7
 * ids and files each session by the time in its id; vendors name a session by who and when it
 * started (Amplitude's device and start in ms, GA4's `user_pseudo_id` and `ga_session_id`). So
 * `$session_id` is a UUIDv7 whose time is that start and whose other bits come from the names:
 * every event of a session gets the same id, two people's sessions that start together get two,
 * and a rerun, or the same session read from another file, gets the same id. Pure.
 */
import { sessionUuid } from '../../events/derived-uuids.js';

/** The largest time a UUIDv7 holds (48 bits of milliseconds). */
export const MAX_V7_MS = 2 ** 48 - 1;

/** Session ids made lately, by identity: a session's events come close together in an export. */
export type SessionIdCache = Map<string, string>;
const CACHED_SESSIONS = 4096;

/** The session id of `identity` starting at `startMs` (a positive integer of UTC ms). */
export function vendorSessionId(startMs: number, identity: string, cache: SessionIdCache): string {
  let id = cache.get(identity);
  if (id === undefined) {
    if (cache.size >= CACHED_SESSIONS) cache.clear();
    id = sessionUuid(startMs, identity);
    cache.set(identity, id);
  }
  return id;
}
