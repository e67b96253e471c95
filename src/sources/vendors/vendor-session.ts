/**
 * A vendor's numbered session as a session PostHog can read: PostHog's sessions table keeps only
 * UUIDv7 ids and files each session by the time in its id. Amplitude and GA4 both number a
 * session by its start; `$session_id` is then a UUIDv7 whose time is that start and whose other
 * bits come from who had the session and its number, so every event of a session gets the same
 * id, the same number for two people gives two sessions, and a rerun gives the same ids. Pure.
 */
import { sessionUuid } from '../../events/derived-uuids.js';

/** The largest time a UUIDv7 holds (48 bits of milliseconds). */
export const MAX_V7_MS = 2 ** 48 - 1;

/** Session ids made lately, by identity: a session's events come close together in an export. */
export type SessionIdCache = Map<string, string>;
const CACHED_SESSIONS = 4096;

/** The session id of a session starting at `startMs` (UTC) named by `identity` (vendor, who, number). */
export function vendorSessionId(startMs: number, identity: string, cache: SessionIdCache): string | undefined {
  if (!Number.isInteger(startMs) || startMs <= 0 || startMs > MAX_V7_MS) return undefined;
  let id = cache.get(identity);
  if (id === undefined) {
    if (cache.size >= CACHED_SESSIONS) cache.clear();
    id = sessionUuid(startMs, identity);
    cache.set(identity, id);
  }
  return id;
}
