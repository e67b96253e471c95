/**
 * Constants in the sandbox's HogQL: reading date and time strings the way ClickHouse does in a
 * UTC project, and printing names and strings back as HogQL. Pure.
 */
import { QueryProblem } from './query-problem.js';

/**
 * The sandbox's one form of a point in time in a query: ISO in UTC with six fraction digits,
 * the form events' times are stored in (see stored-time.ts), so texts compare as times do.
 * A column kept to the millisecond (persons' and groups' created_at) is put in it by SQL.
 */
export function millisecondColumnAsTime(column: string): string {
  return `(strftime('%Y-%m-%dT%H:%M:%f', ${column}) || '000Z')`;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function validDay(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * A time string in the query form (ISO in UTC, six fraction digits: microseconds, as
 * DateTime64(6) reads it; more digits are dropped); zone-less times are UTC (the project's zone).
 */
export function parseDateTimeLiteral(text: string): string {
  const trimmed = text.trim();
  const dateOnly = DATE_ONLY.exec(trimmed);
  const match = dateOnly ?? DATE_TIME.exec(trimmed);
  if (match !== null && validDay(Number(match[1]), Number(match[2]), Number(match[3]))) {
    const iso = dateOnly ? `${trimmed}T00:00:00Z` : trimmed.replace(' ', 'T') + (match[8] === undefined ? 'Z' : '');
    const ms = Date.parse(iso);
    const micros = (dateOnly ? '' : (match[7] ?? '').slice(4, 7)).padEnd(3, '0');
    if (!Number.isNaN(ms)) return `${new Date(ms).toISOString().slice(0, -1)}${micros}Z`;
  }
  throw new QueryProblem(`Cannot parse '${text}' as a date and time (use 'YYYY-MM-DD' or 'YYYY-MM-DD hh:mm:ss').`);
}

/** A date string (or a date and time, whose UTC day is taken) as YYYY-MM-DD. */
export function parseDateLiteral(text: string): string {
  const match = DATE_ONLY.exec(text.trim());
  if (match !== null && validDay(Number(match[1]), Number(match[2]), Number(match[3]))) return text.trim();
  try {
    return parseDateTimeLiteral(text).slice(0, 10);
  } catch {
    throw new QueryProblem(`Cannot parse '${text}' as a date (use 'YYYY-MM-DD').`);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseUuidLiteral(text: string): string {
  if (!UUID.test(text)) throw new QueryProblem(`Cannot parse '${text}' as a UUID.`);
  return text.toLowerCase();
}

/** The offset of `timezone` at `ms`, in minutes east of UTC. */
function offsetMinutes(ms: number, timezone: string): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' }).formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match === null ? 0 : (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

/**
 * A stored instant (SQLite's form) as PostHog's API writes a DateTime: in the project's time
 * zone, seconds, microseconds only when not zero, then Z in UTC or the zone's offset.
 */
export function formatDateTime(value: unknown, timezone = 'UTC'): unknown {
  if (typeof value !== 'string') return value;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{3}|\d{6})Z$/.exec(value);
  if (match === null) return value;
  const digits = match[2]!.padEnd(6, '0');
  const fraction = digits === '000000' ? '' : `.${digits}`;
  if (timezone === 'UTC') return `${match[1]}${fraction}Z`;
  const ms = Date.parse(value);
  const offset = offsetMinutes(ms, timezone);
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offset);
  return `${local}${fraction}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function printIdentifier(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

export function printString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
