/**
 * Heap's session as a session PostHog can read (see vendor-sessions.ts). Heap names a session
 * by its `session_id` (a number, per user) and writes its start on every event row as
 * `session_time`; the `$session_id` is a UUIDv7 whose time is that start. A row without a
 * session time gets no id here (--sessionize can give it one). Pure.
 */
import { distinctIdText } from '../../json/json-numbers.js';
import { pipelineTime } from './mixpanel-pipeline.js';
import { isMissing } from './vendor-values.js';
import { MAX_V7_MS, vendorSessionId, type SessionIdCache } from './vendor-sessions.js';

/** The `$session_id` of `userId`'s session `sessionId` that started at `sessionTime`; undefined without all three. */
export function heapSessionId(userId: unknown, sessionId: unknown, sessionTime: unknown, cache: SessionIdCache = new Map()): string | undefined {
  if (isMissing(userId) || isMissing(sessionId) || isMissing(sessionTime)) return undefined;
  const startMs = pipelineTime(sessionTime, 'session_time');
  if (typeof startMs !== 'number' || startMs <= 0 || startMs > MAX_V7_MS) return undefined;
  return vendorSessionId(startMs, `heap\n${distinctIdText(userId)}\n${distinctIdText(sessionId)}`, cache);
}
