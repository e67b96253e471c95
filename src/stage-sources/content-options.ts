/**
 * The options that shape what a file's rows become (content-shaping options), declared once.
 * Each read records their values; reading the same file again with other values would give
 * its rows the same uuids with other content, so the change is refused before anything is
 * staged, unless it only lets in rows that were rejected before (it widens) or the user passes
 * --replace-changed. To add one: a row here, and its value in the command's recorded options
 * under `key` (never rename a key: staging files record options by key).
 *
 * An option this version added (or whose default it changed) inherits: left at its default, it
 * takes the value the file's earlier read had (`unrecorded` for a read by a migrate that did not
 * record it), so staging a file again after an upgrade reads it as it was read then and stages
 * nothing new. Only a value given explicitly is a change.
 */
import { canonicalJson } from '../json/canonical-json.js';

/** What a run reads a file with, which an inherited value is put into. */
export interface RunSettings {
  readerOptions: { encoding?: string; delimiter?: string; trim?: boolean; groupType?: string };
  rules: { minTimeMs?: number };
  /** The options recorded with the read. */
  recorded: Record<string, unknown>;
}

export interface Inheritance {
  /** Puts the earlier read's value into the run's settings (its recorded options included). */
  apply: (value: unknown, run: RunSettings) => void;
  /** The flag that asks for `value` explicitly, for the notice. */
  ask: (value: unknown) => string;
}

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
  /** Set when the option, left at its default, takes the earlier read's value (see the module comment). */
  inherits?: Inheritance;
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
  // The format (and so the command: identify-users reads `users-csv`) the file is read as. A
  // read by a migrate that did not record it is not compared here; unchanged-reads.ts takes the
  // source's recorded format for it.
  { key: 'from', flag: '--from', show: showFormat },
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
  {
    key: 'strictTime',
    flag: '--strict-time',
    unrecorded: true,
    widens: (before, after) => before === true && after === false,
    show: (v) => (v === false ? 'client or server time when event_time is missing' : 'event_time required'),
  },
  // --no-geoip: every row carries $geoip_disable. Reads by an older migrate did not record it
  // (their rows carry neither); they are not compared, and doctor warns about them.
  { key: 'geoip', flag: '--no-geoip', show: (v) => (v === false ? 'GeoIP off for every row' : "GeoIP from the rows' own $ip only") },
  // An earlier bound lets in rows rejected as implausible before; a later one would drop staged
  // rows. A migrate that did not record a bound had none (null).
  {
    key: 'minTime',
    flag: '--min-time',
    unrecorded: null,
    widens: (before, after) => typeof before === 'string' && typeof after === 'string' && after < before,
    show: (v) => (v === null ? 'no bound' : showDay(v)),
    inherits: {
      apply: (v, run) => {
        run.rules.minTimeMs = v === null ? Number.NEGATIVE_INFINITY : Date.parse(String(v));
        run.recorded.minTime = v;
      },
      ask: (v) => `--min-time ${showDay(v)}`,
    },
  },
  { key: 'segmentGroupType', flag: '--segment-group-type', inherits: { apply: (v, run) => readWith(run, 'groupType', 'segmentGroupType', v), ask: (v) => `--segment-group-type ${String(v)}` } },
  // How the text is read: other values read its rows as other text, with other uuids. A read by
  // a migrate that did not record them read UTF-8, split on commas and kept spaces around values.
  { key: 'encoding', flag: '--encoding', unrecorded: 'utf-8', inherits: { apply: (v, run) => readWith(run, 'encoding', 'encoding', v), ask: (v) => `--encoding ${String(v)}` } },
  {
    key: 'delimiter',
    flag: '--delimiter',
    unrecorded: ',',
    show: showDelimiter,
    inherits: { apply: (v, run) => readWith(run, 'delimiter', 'delimiter', v), ask: (v) => `--delimiter ${showDelimiter(v)}` },
  },
  {
    key: 'trim',
    flag: '--trim/--no-trim',
    unrecorded: false,
    show: (v) => (v === false ? 'values not trimmed' : 'values trimmed'),
    inherits: { apply: (v, run) => readWith(run, 'trim', 'trim', v), ask: (v) => (v === false ? '--no-trim' : '--trim') },
  },
  // The transform module's content (its SHA-256), not its path. Any change may change any row.
  { key: 'transform', flag: '--transform', unrecorded: null, show: (v) => (v === null ? 'no transform' : `transform ${String(v).slice(0, 19)}...`) },
  // A filter that lets in more (a longer --only-events, a shorter --skip-events, an earlier
  // --since, a later --until, or none) only stages rows skipped before: it widens.
  {
    key: 'onlyEvents',
    flag: '--only-events',
    unrecorded: null,
    widens: (before, after) => before !== null && (after === null || names(before).every((n) => names(after).includes(n))),
    show: showNames,
  },
  {
    key: 'skipEvents',
    flag: '--skip-events',
    unrecorded: null,
    widens: (before, after) => before !== null && (after === null || names(after).every((n) => names(before).includes(n))),
    show: showNames,
  },
  {
    key: 'since',
    flag: '--since',
    unrecorded: null,
    widens: (before, after) => before !== null && (after === null || String(after) < String(before)),
    show: (v) => (v === null ? 'none' : showDay(v)),
  },
  {
    key: 'until',
    flag: '--until',
    unrecorded: null,
    widens: (before, after) => before !== null && (after === null || String(after) > String(before)),
    show: (v) => (v === null ? 'none' : showDay(v)),
  },
];

/** `export-source --from csv`, `identify-users --from csv` (recorded as `users-csv`). */
function showFormat(value: unknown): string {
  const [, kind, format] = /^(users|groups)-(.+)$/.exec(String(value)) ?? [];
  return kind === undefined ? `export-source --from ${String(value)}` : `identify-${kind} --from ${format}`;
}

function names(value: unknown): string[] {
  return value as string[];
}

function showNames(value: unknown): string {
  return value === null ? 'none' : names(value).join(',');
}

function showDelimiter(value: unknown): string {
  return value === '\t' ? 'tab' : `'${String(value)}'`;
}

/** A recorded bound; a day when it is midnight UTC. */
function showDay(value: unknown): string {
  return String(value).replace('T00:00:00.000Z', '');
}

/** An inherited reader option: read with it, and record it. */
function readWith(run: RunSettings, option: keyof RunSettings['readerOptions'], key: string, value: unknown): void {
  (run.readerOptions as Record<string, unknown>)[option] = value;
  run.recorded[key] = value;
}

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

/** An option left at its default that takes the earlier read's `value` instead of `instead`. */
export interface KeptOption {
  option: ContentOption;
  value: unknown;
  instead: unknown;
}

/**
 * The inheriting options this run left at their defaults (`defaulted`, by key) whose values
 * differ from the earlier read's: the run takes the earlier ones (see the module comment).
 */
export function keptOptions(before: Record<string, unknown>, after: Record<string, unknown>, defaulted: readonly string[]): KeptOption[] {
  const kept: KeptOption[] = [];
  for (const option of CONTENT_OPTIONS) {
    if (option.inherits === undefined || !defaulted.includes(option.key)) continue;
    if (!Object.hasOwn(before, option.key) && !('unrecorded' in option)) continue;
    const was = valueOf(before, option) ?? null;
    const now = valueOf(after, option) ?? null;
    if (canonicalJson(was) !== canonicalJson(now)) kept.push({ option, value: was, instead: now });
  }
  return kept;
}

/** `kept as first staged: values not trimmed (--trim/--no-trim); pass --trim to change it, ...`. */
export function describeKept(kept: KeptOption): string {
  const show = kept.option.show ?? defaultShow;
  return `kept as first staged: ${show(kept.value)} (${kept.option.flag}); pass ${kept.option.inherits!.ask(kept.instead)} to change it, a change refused unless --replace-changed`;
}

/** One line per change: `--group: was none, now company=company_id`. */
export function describeChange(change: OptionChange): string {
  const show = change.option.show ?? defaultShow;
  return `${change.option.flag}: was ${show(change.before)}, now ${show(change.after)}`;
}
