/**
 * An event's stored time, the way PostHog's ingestion computes it. With a `sent_at` (and no
 * `$ignore_sent_at: true`), the client's clock skew is removed: timestamp + (now - sent_at).
 * Without a timestamp, `offset` ms before now, else now. More than 23 hours in the future
 * becomes now; an unreadable timestamp becomes now.
 */

const FUTURE_CUTOFF_MS = 23 * 60 * 60 * 1000;
const HAS_ZONE = /(Z|[+-]\d{2}(:?\d{2})?)$/i;

/** ISO 8601 in UTC unless it says otherwise (ingestion reads zone-less times as UTC). */
export function parseIsoUtc(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const withZone = HAS_ZONE.test(trimmed) || !/\d{2}:\d{2}/.test(trimmed) ? trimmed : `${trimmed}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? undefined : ms;
}

export interface TimestampInput {
  timestamp?: unknown;
  offset?: unknown;
  ignoreSentAt: boolean;
}

export function resolveTimestamp(input: TimestampInput, nowMs: number, sentAtMs: number | undefined): number {
  const sentAt = input.ignoreSentAt ? undefined : sentAtMs;
  let result = nowMs;
  if (typeof input.timestamp === 'string' && input.timestamp !== '') {
    const parsed = parseIsoUtc(input.timestamp);
    if (parsed === undefined) return nowMs;
    result = sentAt === undefined ? parsed : parsed + (nowMs - sentAt);
  } else if (typeof input.offset === 'number' && Number.isFinite(input.offset)) {
    result = nowMs - input.offset;
  }
  if (result - nowMs > FUTURE_CUTOFF_MS) return nowMs;
  const year = new Date(result).getUTCFullYear();
  return Number.isNaN(year) || year < 0 || year > 9999 ? nowMs : result;
}
