/**
 * Reading an event's `timestamp` text as PostHog's capture does: RFC 3339 first (with `+03`
 * read as `+03:00`), then the common formats of Rust's dateparser (date only, date and time
 * with a space, epoch seconds / milliseconds / nanoseconds as digits, RFC 2822, slashes),
 * then a date and time without a zone. Times without a zone are UTC (PostHog's servers run in
 * UTC). Anything else is unreadable (undefined): the event is then stored at ingestion time.
 */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:([Tt ])(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?(?: ?(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?))?$/;
const SLASHES = /^(?:(\d{1,2})\/(\d{1,2})\/(\d{4})|(\d{4})\/(\d{1,2})\/(\d{1,2}))(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const RFC_2822 = /^(?:[A-Za-z]{3}, ?)?\d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}(?::\d{2})? (?:GMT|UT|UTC|Z|[+-]\d{4})$/;
const EPOCH_DIGITS: Record<number, number> = { 10: 1000, 13: 1 };
/** Epoch nanoseconds: 19 digits, more than a float holds exactly. */
const EPOCH_NS_DIGITS = 19;

/**
 * A point in time to the microsecond, as ClickHouse's DateTime64(6) holds an event's
 * `timestamp`: whole milliseconds and the microseconds past them (0-999).
 */
export interface EventTime {
  ms: number;
  subMsUs: number;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The microseconds past the millisecond of a `.fraction` (digits past the sixth dropped). */
function subMsOf(fraction: string): number {
  return fraction.length <= 4 ? 0 : Number(fraction.slice(4, 7).padEnd(3, '0'));
}

function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, fraction = ''): number | undefined {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && !leap ? 28 : DAYS_IN_MONTH[month - 1]!)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = fraction === '' ? 0 : Number(fraction.slice(1, 4).padEnd(3, '0'));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, Math.min(second, 59), ms);
  return date.getTime();
}

/** Minutes east of UTC for a zone text, or undefined. */
function zoneMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || /^(Z|z|UTC|GMT)$/.test(zone)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m || Number(m[2]) > 23 || Number(m[3] ?? 0) > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

function dateTime(text: string): EventTime | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, separator, h, mi, s, fraction, zone] = m;
  // RFC 3339 wants seconds with a T; dateparser takes HH:MM after a space; a zone needs a time.
  if (separator === undefined && zone !== undefined && zone !== 'UTC' && zone !== 'GMT') return undefined;
  if ((separator === 'T' || separator === 't') && s === undefined && zone !== undefined) return undefined;
  const offset = zoneMinutes(zone);
  const ms = utcMs(Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), fraction ?? '');
  return offset === undefined || ms === undefined ? undefined : { ms: ms - offset * 60_000, subMsUs: subMsOf(fraction ?? '') };
}

function slashes(text: string): number | undefined {
  const m = SLASHES.exec(text);
  if (!m) return undefined;
  const [, us1, us2, usYear, year, month, day, h, mi, s] = m;
  return usYear !== undefined
    ? utcMs(Number(usYear), Number(us1), Number(us2), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0))
    : utcMs(Number(year), Number(month), Number(day), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0));
}

/** `+03` at the end of a full ISO date and time reads as `+03:00`. */
function normalizeZone(text: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?[+-]\d{2}$/.test(text) ? `${text}:00` : text;
}

/** Epoch milliseconds of an event timestamp text, or undefined when PostHog could not read it. */
export function parseEventDate(raw: string): number | undefined {
  return parseEventTime(raw)?.ms;
}

const wholeMs = (ms: number | undefined): EventTime | undefined => (ms === undefined || Number.isNaN(ms) ? undefined : { ms, subMsUs: 0 });

/** An event timestamp text to the microsecond, or undefined when PostHog could not read it. */
export function parseEventTime(raw: string): EventTime | undefined {
  const text = normalizeZone(raw);
  const digits = /^\d+$/.test(text);
  if (digits && text.length === EPOCH_NS_DIGITS) {
    const us = BigInt(text) / 1000n;
    return { ms: Number(us / 1000n), subMsUs: Number(us % 1000n) };
  }
  const scale = digits ? EPOCH_DIGITS[text.length] : undefined;
  if (scale !== undefined) return wholeMs(Math.floor(Number(text) * scale));
  if (RFC_2822.test(text)) return wholeMs(Date.parse(text));
  return dateTime(text) ?? wholeMs(slashes(text));
}
