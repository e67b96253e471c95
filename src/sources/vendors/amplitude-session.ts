/**
 * Amplitude's `session_id` as a session PostHog can read. Amplitude numbers a session by its
 * start in epoch milliseconds (-1: no session); PostHog's sessions table keeps only UUIDv7 ids
 * and files each session by the time in its id. So `$session_id` is a UUIDv7 whose time is that
 * start and whose other bits come from the device (or the user, without one) and the number:
 * every event of a session gets the same id, the same number on two devices gives two sessions,
 * and a rerun gives the same ids. Pure.
 */
import { sessionUuid } from '../../events/derived-uuids.js';
import { isMissing, type Properties } from './vendor-values.js';

/** The largest time a UUIDv7 holds (48 bits of milliseconds). */
const MAX_V7_MS = 2 ** 48 - 1;

/** Session ids made lately, by identity: a session's events come close together in an export. */
export type SessionIdCache = Map<string, string>;
const CACHED_SESSIONS = 4096;

export function amplitudeSessionId(record: Properties, cache: SessionIdCache = new Map()): string | undefined {
  const session = record.session_id;
  if (typeof session !== 'number' || !Number.isInteger(session) || session <= 0 || session > MAX_V7_MS) return undefined;
  const who = !isMissing(record.device_id) ? `device\n${String(record.device_id)}` : !isMissing(record.user_id) ? `user\n${String(record.user_id)}` : undefined;
  if (who === undefined) return undefined;
  const identity = `amplitude\n${who}\n${session}`;
  let id = cache.get(identity);
  if (id === undefined) {
    if (cache.size >= CACHED_SESSIONS) cache.clear();
    id = sessionUuid(session, identity);
    cache.set(identity, id);
  }
  return id;
}
