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
}

export const CSV_ROLES = ['event', 'distinct_id', 'timestamp', 'uuid', 'properties'] as const;
export type CsvRole = (typeof CSV_ROLES)[number];

/**
 * A source format: turns the decoded text of one file into batches of items. Throws InputError
 * when the file as a whole is unusable (a CSV without its required columns).
 */
export type SourceReader = (text: AsyncIterable<string>, options: ReaderOptions) => AsyncIterable<SourceItem[]>;

/**
 * A `--from` format: its reader, and how its text may be cut into independent pieces
 * (`csv`: at line ends outside quotes, after a header; `lines`: at any line end).
 */
export interface SourceFormat {
  reader: SourceReader;
  layout: 'csv' | 'lines';
}
