/**
 * Amplitude's `session_id` as a session PostHog can read (see vendor-session.ts). Amplitude
 * numbers a session by its start in epoch milliseconds (-1: no session); the other bits of the
 * id come from the device (or the user, without one) and the number. Pure.
 */
import { isMissing, type Properties } from './vendor-values.js';
import { vendorSessionId, type SessionIdCache } from './vendor-session.js';

export type { SessionIdCache } from './vendor-session.js';

export function amplitudeSessionId(record: Properties, cache: SessionIdCache = new Map()): string | undefined {
  const session = record.session_id;
  if (typeof session !== 'number') return undefined;
  const who = !isMissing(record.device_id) ? `device\n${String(record.device_id)}` : !isMissing(record.user_id) ? `user\n${String(record.user_id)}` : undefined;
  if (who === undefined) return undefined;
  return vendorSessionId(session, `amplitude\n${who}\n${session}`, cache);
}
