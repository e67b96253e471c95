/**
 * An event's stored time, the way PostHog computes it. A readable `timestamp` is taken, less
 * the client's clock skew when a `sent_at` came with it (and no `$ignore_sent_at: true`):
 * timestamp + (now - sent_at). An `offset` (ms before now) wins over the timestamp. More than
 * 23 hours in the future becomes now; a year outside 0-9999 becomes the epoch; an unreadable
 * timestamp becomes now, with a warning.
 */
import { FUTURE_TIMESTAMP_ALLOWANCE_MS as FUTURE_CUTOFF_MS } from '../../posthog/limits.js';
import { parseEventDate, parseEventTime } from './event-date.js';

/** ISO 8601 in UTC unless it says otherwise (a batch's `sent_at`). */
export function parseIsoUtc(text: string): number | undefined {
  return parseEventDate(text.trim());
}

export interface TimestampInput {
  timestamp?: string | null;
  offset?: number | null;
  ignoreSentAt: boolean;
}

export type TimestampWarning = 'ignored_invalid_timestamp' | 'event_timestamp_in_future';

export interface ResolvedTimestamp {
  ms: number;
  /** Microseconds past `ms` (0-999): kept from the timestamp as written, 0 for a time the server chose. */
  subMsUs: number;
  warning?: TimestampWarning;
}

export function resolveTimestamp(input: TimestampInput, nowMs: number, sentAtMs: number | undefined): ResolvedTimestamp {
  const sentAt = input.ignoreSentAt ? undefined : sentAtMs;
  let ms = nowMs;
  let subMsUs = 0;
  let warning: TimestampWarning | undefined;
  if (typeof input.timestamp === 'string') {
    const parsed = parseEventTime(input.timestamp);
    if (parsed === undefined) warning = 'ignored_invalid_timestamp';
    else {
      ms = sentAt === undefined ? parsed.ms : parsed.ms + (nowMs - sentAt);
      subMsUs = parsed.subMsUs;
    }
  }
  if (typeof input.offset === 'number') ms = nowMs - input.offset;
  if (ms - nowMs > FUTURE_CUTOFF_MS || typeof input.offset === 'number') subMsUs = 0;
  if (ms - nowMs > FUTURE_CUTOFF_MS) {
    ms = nowMs;
    warning = 'event_timestamp_in_future';
  }
  const year = new Date(ms).getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) {
    ms = 0;
    subMsUs = 0;
  }
  return warning === undefined ? { ms, subMsUs } : { ms, subMsUs, warning };
}
