/**
 * The options that shape what a file's rows become (content-shaping options), declared once.
 * Each read records their values; reading the same file again with other values would give
 * its rows the same uuids with other content, so the change is refused before anything is
 * staged, unless it only lets in rows that were rejected before (it widens) or the user passes
 * --replace-changed. To add one: a row here, and its value in the command's recorded options
 * under `key` (never rename a key: staging files record options by key).
 */
import { canonicalJson } from '../events/canonical-json.js';

export interface ContentOption {
  /** The key its value is recorded under, with each read. */
  key: string;
  /** The flag that sets it, for messages. */
  flag: string;
  /**
   * Its value when a read's record lacks the key (a read by an older migrate, or a command
   * without the option). Absent: such a read is not compared on this option.
   */
  unrecorded?: unknown;
  /** True when going from `before` to `after` only lets in rows rejected before (then allowed). */
  widens?: (before: unknown, after: unknown) => boolean;
  /** The value as shown in messages; default JSON, "none" for null, empty lists and objects. */
  show?: (value: unknown) => string;
}

function defaultShow(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value) && value.length === 0) return 'none';
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0) return 'none';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function pairs(entries: Array<[string, string]>): string {
  return entries.length === 0 ? 'none' : entries.map(([a, b]) => `${a}=${b}`).join(' ');
}

export const CONTENT_OPTIONS: readonly ContentOption[] = [
  // The mapping file's content (its fingerprint), not its path: a moved file changes nothing.
  { key: 'mapping', flag: '--map', unrecorded: null, show: (v) => (v === null ? 'no mapping file' : `mapping ${String(v).slice(0, 19)}...`) },
  // Adding a zone lets in rows rejected for having none; rows with a zone keep their times.
  { key: 'timezone', flag: '--timezone', unrecorded: null, widens: (before, after) => before === null && after !== null },
  { key: 'columns', flag: '--column', unrecorded: {}, show: (v) => pairs(Object.entries(v as Record<string, string>)) },
  { key: 'groups', flag: '--group', unrecorded: [], show: (v) => pairs((v as Array<{ type: string; property: string }>).map((g) => [g.type, g.property])) },
  { key: 'inferTypes', flag: '--no-infer-types', unrecorded: true, show: (v) => (v === false ? 'cells kept as text' : 'types inferred') },
  { key: 'setOnce', flag: '--set-once', unrecorded: [], show: (v) => (v as string[]).join(',') || 'none' },
  { key: 'groupType', flag: '--group-type', unrecorded: null },
  { key: 'keyColumn', flag: '--key-column', unrecorded: null },
  // Identity links are drawn from the source's events; with --no-identity-links none are (and undelivered ones are withdrawn).
  { key: 'identityLinks', flag: '--no-identity-links', unrecorded: true, show: (v) => (v === false ? 'no identity links' : 'identity links') },
  // The events get computed session ids; a source's own non-UUIDv7 $session_id moves to $source_session_id.
  { key: 'sessionize', flag: '--sessionize', unrecorded: null, show: (v) => (v === null ? 'no computed sessions' : `sessions after ${String(v)} minutes without an event`) },
  // Taking a missing event_time from client_event_time only lets in rows rejected before.
  { key: 'strictTime', flag: '--strict-time', unrecorded: true, widens: (before, after) => before === true && after === false, show: (v) => (v === false ? 'client or server time when event_time is missing' : 'event_time required') },
  // An earlier bound lets in rows rejected as implausible before; a later one would drop staged rows.
  { key: 'minTime', flag: '--min-time', widens: (before, after) => typeof before === 'string' && typeof after === 'string' && after < before },
];

export interface OptionChange {
  option: ContentOption;
  before: unknown;
  after: unknown;
  widens: boolean;
}

function valueOf(record: Record<string, unknown>, option: ContentOption): unknown {
  return Object.hasOwn(record, option.key) ? record[option.key] : option.unrecorded;
}

/** The content-shaping options whose values differ between an earlier read and this one. */
export function contentChanges(before: Record<string, unknown>, after: Record<string, unknown>, options: readonly ContentOption[] = CONTENT_OPTIONS): OptionChange[] {
  const changes: OptionChange[] = [];
  for (const option of options) {
    if (!Object.hasOwn(before, option.key) && !('unrecorded' in option)) continue;
    const was = valueOf(before, option) ?? null;
    const now = valueOf(after, option) ?? null;
    if (canonicalJson(was) === canonicalJson(now)) continue;
    changes.push({ option, before: was, after: now, widens: option.widens?.(was, now) === true });
  }
  return changes;
}

/** One line per change: `--group: was none, now company=company_id`. */
export function describeChange(change: OptionChange): string {
  const show = change.option.show ?? defaultShow;
  return `${change.option.flag}: was ${show(change.before)}, now ${show(change.after)}`;
}
