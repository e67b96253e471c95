/**
 * Heap's session as a session PostHog can read (see vendor-sessions.ts). Heap names a session
 * by its `session_id` (a number, per user); the `$session_id` is a UUIDv7 whose time is the
 * session's start. Where an event row's `session_time` is a time at or before the event, it is
 * that start and the id is made as the row is read; otherwise (no `session_time`, or one that
 * counts the seconds since the session began, as Heap's later Data Connect documents it) the
 * row gets its id after staging, from its session's first event (passes/heap-sessions.ts).
 * Pure.
 */
import { sessionUuid } from '../../events/derived-uuids.js';
import { distinctIdText } from '../../json/json-numbers.js';
import { pipelineTime } from './mixpanel-pipeline.js';
import { isMissing } from './vendor-values.js';
import { MAX_V7_MS, vendorSessionId, type SessionIdCache } from './vendor-sessions.js';

/** 2000-01-01T00:00:00Z: a `session_time` before it counts seconds within the session, not a start. */
const EARLIEST_START_MS = 946_684_800_000;

function identity(user: string, session: string): string {
  return `heap\n${user}\n${session}`;
}

/** The session id of user `user`'s session `session` (both as text, every digit) that started at `startMs`. */
export function heapSessionUuid(user: string, session: string, startMs: number): string {
  return sessionUuid(startMs, identity(user, session));
}

/**
 * The `$session_id` of `userId`'s session `sessionId` that started at `sessionTime`; undefined
 * without all three, or when `sessionTime` is not a start (before 2000, or after the event at
 * `eventMs`).
 */
export function heapSessionId(userId: unknown, sessionId: unknown, sessionTime: unknown, eventMs?: number, cache: SessionIdCache = new Map()): string | undefined {
  if (isMissing(userId) || isMissing(sessionId) || isMissing(sessionTime)) return undefined;
  const startMs = pipelineTime(sessionTime, 'session_time');
  if (typeof startMs !== 'number' || startMs < EARLIEST_START_MS || startMs > MAX_V7_MS) return undefined;
  if (eventMs !== undefined && startMs > eventMs) return undefined;
  const user = distinctIdText(userId);
  const session = distinctIdText(sessionId);
  return user === undefined || session === undefined ? undefined : vendorSessionId(startMs, identity(user, session), cache);
}
