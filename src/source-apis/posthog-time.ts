/**
 * Times as PostHog's query API writes them, in the project's time zone (`2024-03-05T09:00:00.123456-05:00`,
 * `...Z` in a UTC project, or without a zone), turned into UTC exactly: the fraction digits are
 * kept as written (offsets are whole minutes, so they never touch them). Pure.
 */
import { createZoneConverter } from '../events/time-zone.js';

const TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/;

function offsetMs(zone: string): number {
  if (zone === 'Z') return 0;
  const digits = zone.replace(':', '');
  const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
  return (zone.startsWith('-') ? -1 : 1) * minutes * 60_000;
}

/**
 * `text` in UTC as `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, the fraction as written; a time without a
 * zone is in `timezone` (the project's). Undefined when it is not a time.
 */
export function toUtcExact(text: string, timezone = 'UTC'): string | undefined {
  const match = TIME.exec(text.trim());
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const wallMs = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(wallMs) || new Date(wallMs).getUTCDate() !== Number(d)) return undefined;
  let utc: number | undefined;
  if (zone !== undefined) utc = wallMs - offsetMs(zone);
  else utc = timezone === 'UTC' ? wallMs : createZoneConverter(timezone).toUtc(wallMs);
  if (utc === undefined) return undefined;
  return `${new Date(utc).toISOString().slice(0, 19)}${fraction === undefined ? '' : `.${fraction}`}Z`;
}
