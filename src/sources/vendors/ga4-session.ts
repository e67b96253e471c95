/**
 * GA4's session as a session PostHog can read (see vendor-session.ts). `ga_session_id` (an event
 * parameter) is the session's start in epoch seconds, and names a session together with the
 * device, `user_pseudo_id`; the id's time is that start. Pure.
 */
import { isMissing } from './vendor-values.js';
import { vendorSessionId, type SessionIdCache } from './vendor-session.js';

/** A positive whole number of seconds, from a number or its digits (GA4 writes int_value as text in JSON). */
function seconds(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

export function ga4SessionId(gaSessionId: unknown, userPseudoId: unknown, cache: SessionIdCache): string | undefined {
  const start = seconds(gaSessionId);
  if (start === undefined || isMissing(userPseudoId)) return undefined;
  return vendorSessionId(start * 1000, `ga4\ndevice\n${String(userPseudoId)}\n${start}`, cache);
}
