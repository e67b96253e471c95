import type { CandidateEvent } from '../events/build-event.js';
import type { RowProblem } from '../events/reject-reasons.js';

/** One row of a source file: a candidate event, or the reason it could not become one. */
export type SourceItem =
  | { line: number; raw: string; candidate: CandidateEvent }
  | { line: number; raw: string; problem: RowProblem };

export interface ReaderOptions {
  /** The file as the user named it, for messages. */
  displayName: string;
  /** Turn CSV cells such as `42` and `true` into JSON numbers and booleans. Default true. */
  inferTypes?: boolean;
  /** CSV only: header names to use for the standard columns, e.g. { distinct_id: 'user_id' }. */
  columns?: Partial<Record<CsvRole, string>>;
  /** Timestamp (UTC ms) for rows that have none; only person and group updates may lack one. */
  defaultTimestampMs?: number;
  /** identify-users: columns whose values go into $set_once rather than $set. */
  setOnce?: string[];
  /** identify-groups: the group type, and the column holding the group key (default group_key). */
  groupType?: string;
  keyColumn?: string;
  /** Amplitude only: reject an event without `event_time` rather than take its client or server time. */
  strictTime?: boolean;
  /** Mixpanel only: the project's time zone (IANA name), in which older projects' exports write `time`. */
  timezone?: string;
}

export const CSV_ROLES = ['event', 'distinct_id', 'timestamp', 'uuid', 'properties'] as const;
export type CsvRole = (typeof CSV_ROLES)[number];

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
   * a header; `lines` at any line end.
   */
  layout: 'csv' | 'lines';
  /** Names read from a directory or a zip archive (before an optional `.gz`); lowercase. */
  extensions: readonly string[];
  /**
   * What `--timezone` means: `rows`, the zone of times written without one; `project`, the
   * Mixpanel project zone its `time` values were written in; `utc`, not accepted (always UTC).
   */
  timezone: 'rows' | 'project' | 'utc';
  /** Event renames the format adds to the built-in ones (null drops the event). */
  eventRenames?: Readonly<Record<string, string | null>>;
}
