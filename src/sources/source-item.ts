import type { CandidateEvent } from '../events/build-event.js';
import type { RowProblem } from '../events/reject-reasons.js';

/** One row of a source file: a candidate event, or the reason it could not become one. */
export type SourceItem = { line: number; raw: string; candidate: CandidateEvent } | { line: number; raw: string; problem: RowProblem };

export interface ReaderOptions {
  /** The file as the user named it, for messages. */
  displayName: string;
  /** Turn CSV cells such as `42` and `true` into JSON numbers and booleans. Default true. */
  inferTypes?: boolean;
  /**
   * Where the standard fields are read from, e.g. { distinct_id: 'user_id' }: a header for CSV
   * (matched ignoring case), a dotted path for JSON (`properties.user.id`).
   */
  columns?: Partial<Record<string, string>>;
  /** CSV only: the field delimiter, one character. Default `,`. */
  delimiter?: string;
  /** CSV only: drop spaces and tabs around unquoted values. Default true. */
  trim?: boolean;
  /** The WHATWG name of the file's encoding (for messages about bad bytes). Default utf-8. */
  encoding?: string;
  /** Timestamp (UTC ms) for rows that have none; only person and group updates may lack one. */
  defaultTimestampMs?: number;
  /** identify-users: columns whose values go into $set_once rather than $set. */
  setOnce?: string[];
  /** identify-groups: the group type, and the column holding the group key (default group_key). */
  groupType?: string;
  keyColumn?: string;
  /** Amplitude only: reject an event without `event_time` rather than take its client or server time. */
  strictTime?: boolean;
  /** Parquet files: the rows of each row group, so rejects name theirs (see row-group-items.ts). */
  rowGroupRows?: number[];
  /** Avro files: their row groups are their blocks, and are named so. */
  columnar?: 'parquet' | 'avro';
  /** Mixpanel only: the project's time zone (IANA name), in which older projects' exports write `time`. */
  timezone?: string;
}

export const CSV_ROLES = ['event', 'distinct_id', 'timestamp', 'uuid', 'properties'] as const;
export type CsvRole = (typeof CSV_ROLES)[number];

/** The CSV syntax a reader's options ask for (comma and trimming by default). */
export function csvSyntax(options: Pick<ReaderOptions, 'delimiter' | 'trim'>): { delimiter: string; trim: boolean } {
  return { delimiter: options.delimiter ?? ',', trim: options.trim !== false };
}

/** Turns one JSON text (a line, or an element of an array) into an item; undefined for a blank line. */
export type JsonItemMapper = (entry: { line: number; text: string } | { line: number; overlong: true; head: string; chars: number }) => SourceItem | undefined;

/**
 * A source format: turns the decoded text of one file into batches of items. Throws InputError
 * when the file as a whole is unusable (a CSV without its required columns).
 */
export type SourceReader = (text: AsyncIterable<string>, options: ReaderOptions) => AsyncIterable<SourceItem[]>;

/** A format of source files: how they are found, read, and cut into pieces. */
export interface SourceFormat {
  reader: SourceReader;
  /**
   * How its text may be cut into independent pieces: `csv` at line ends outside quotes, after
   * a header; `lines` at any line end; `array` between the elements of a file holding one JSON
   * array (decided per file, for formats with `jsonItems`).
   */
  layout: 'csv' | 'lines' | 'array';
  /** JSON formats: one line or array element as an item, with the reader's options. */
  jsonItems?: (options: ReaderOptions) => JsonItemMapper;
  /** Names read from a directory or a zip archive (before an optional `.gz`); lowercase. */
  extensions: readonly string[];
  /**
   * What `--timezone` means: `rows`, the zone of times written without one; `project`, the
   * Mixpanel project zone its `time` values were written in; `utc`, not accepted (always UTC).
   */
  timezone: 'rows' | 'project' | 'utc';
  /**
   * Reads Parquet files (told by their first bytes, whatever their names), their rows as JSON
   * object lines: `only` them, or `also` them next to JSON lines.
   */
  parquet?: 'only' | 'also';
  /** Reads Avro object container files (told by their first bytes) only, their records as JSON object lines. */
  avro?: 'only';
  /**
   * PostHog batch exports: files whose columns are the persons model's are read as persons
   * (see stage-sources/export-persons.ts), not as events.
   */
  personsModel?: true;
  /** Event renames the format adds to the built-in ones (null drops the event). */
  eventRenames?: Readonly<Record<string, string | null>>;
}
