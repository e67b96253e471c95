/**
 * GA4's session as a session PostHog can read (see vendor-sessions.ts). GA4 names a session by
 * the device (`user_pseudo_id`) and the `ga_session_id` event parameter, the session's start in
 * epoch seconds; the same number on two devices is two sessions. Events without either get no
 * id here (--sessionize can give them one). Pure.
 */
import { isMissing } from './vendor-values.js';
import { MAX_V7_MS, vendorSessionId, type SessionIdCache } from './vendor-sessions.js';

/** The session's start in UTC ms from `ga_session_id` (seconds, a number or its digits). */
export function ga4SessionStartMs(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value) : typeof value === 'bigint' ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds <= 0) return undefined;
  const ms = seconds * 1000;
  return ms > MAX_V7_MS ? undefined : ms;
}

/** The `$session_id` of an event of `userPseudoId`'s session `gaSessionId`; undefined without both. */
export function ga4SessionId(userPseudoId: unknown, gaSessionId: unknown, cache: SessionIdCache = new Map()): string | undefined {
  if (isMissing(userPseudoId)) return undefined;
  const startMs = ga4SessionStartMs(gaSessionId);
  if (startMs === undefined) return undefined;
  return vendorSessionId(startMs, `ga4\n${String(userPseudoId)}\n${startMs / 1000}`, cache);
}
