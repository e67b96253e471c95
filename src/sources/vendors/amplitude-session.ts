/**
 * Amplitude's `session_id` as a session PostHog can read (see vendor-sessions.ts). Amplitude
 * numbers a session by its start in epoch milliseconds (-1: no session); the id's other bits
 * come from the device (or the user, without one) and the number, so the same number on two
 * devices gives two sessions. Pure.
 */
import { isMissing, type Properties } from './vendor-values.js';
import { MAX_V7_MS, vendorSessionId, type SessionIdCache } from './vendor-sessions.js';

export type { SessionIdCache } from './vendor-sessions.js';

export function amplitudeSessionId(record: Properties, cache: SessionIdCache = new Map()): string | undefined {
  const session = record.session_id;
  if (typeof session !== 'number' || !Number.isInteger(session) || session <= 0 || session > MAX_V7_MS) return undefined;
  const who = !isMissing(record.device_id) ? `device\n${String(record.device_id)}` : !isMissing(record.user_id) ? `user\n${String(record.user_id)}` : undefined;
  if (who === undefined) return undefined;
  return vendorSessionId(session, `amplitude\n${who}\n${session}`, cache);
}
