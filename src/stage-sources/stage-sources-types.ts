/** What the staging use case is asked (files, format, options) and what it returns (each file's summary, the totals). */
import type { BucketChoices } from '../buckets/bucket-settings.js';
import type { NoteCounts } from '../events/source-notes.js';
import type { RulesSpec } from '../events/rules-spec.js';
import type { PassesResult, PassOptions } from '../passes/run-passes.js';
import type { ReaderOptions } from '../sources/source-item.js';
import type { PartialRead, ReadCounts } from '../staging/source-reads.js';
import type { ExportPersons } from './export-persons.js';
import type { FileSummary } from './stage-file-options.js';

export interface StageSourcesInput {
  /** Files as given on the command line. */
  files: string[];
  staging: string;
  /** The command staging them, recorded with each read. */
  command: string;
  /** A registered source format (see sources/formats.ts). */
  format: string;
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  rules: RulesSpec;
  /**
   * PostHog's ingestion rules for these rows (the run's `$import_run` is the staging file's,
   * added here); absent, the rows are staged as mapped (tests of the staging machinery).
   */
  ingestion?: { geoipFromIp: boolean; importSource: string };
  /** Recorded with each read: the options that shape staged content. */
  recordedOptions: Record<string, unknown>;
  /** Worker threads for all the files, in one pool; 0 stages in-process. Default: one fewer than the cores (at least one) when the files come to 8 MiB or more or one is a stream, else 0. */
  workers?: number;
  /** UTF-8 JSON lines cut from their bytes; see StageFileOptions.bytePieces (tests compare both ways). */
  bytePieces?: boolean;
  /** Piece size to aim for; see StageFileOptions.pieceChars. */
  pieceChars?: number;
  /** Timestamp for rows without one; see StageFileOptions.defaultTimestampMs. */
  defaultTimestampMs?: number;
  /** Read directories, globs and zip archives as export-source does; otherwise each name is one file. */
  expandInputs: boolean;
  /**
   * --replace-changed: a file read again with other content-shaping options, or whose rows a
   * project already received, is staged anyway; the rows of its earlier reads that changed or
   * are gone are withdrawn (the projects keep what they received).
   */
  replaceChanged?: boolean;
  /** Options of the passes after staging (identity links, sessions); see run-passes.ts. */
  passes?: PassOptions;
  /**
   * Keys of the content options the user left at their defaults: for a file read before, those
   * with `inherits` take the earlier read's value (see content-options.ts). Absent: none.
   */
  defaulted?: readonly string[];
  /**
   * How `s3://` and `gs://` addresses are reached: the user's choices (endpoint, profile, keys'
   * variables) and the environment the AWS conventions read. Absent: no flags, no environment.
   */
  buckets?: { choices: BucketChoices; env: Readonly<Record<string, string | undefined>> };
  /**
   * --reread: every source is read again, even one staged before and unchanged since (same
   * path, size, time, inode and edges for a file; endpoint, size and ETag for an object).
   */
  reread?: boolean;
}

/** A file's summary, with what was noticed reading it (a delimiter found, a likely wrong encoding). */
export interface StagedFile extends FileSummary {
  notices: string[];
}

export interface StageSourcesResult {
  staging: string;
  files: StagedFile[];
  /** rowsRead + added = staged (new) + alreadyStaged + duplicates (identical) + skipped + rejected; withdrawn are rows of earlier reads. */
  totals: ReadCounts & { withdrawn: number; rejectedByReason: Record<string, number>; skippedByReason: Record<string, number>; notes: NoteCounts };
  /** What the passes after staging did and found (identity links, group updates, sessions). */
  passes?: PassesResult;
  /** PostHog batch exports: what the files of the persons model gave (their persons are staged as one read, in `files`). */
  persons?: ExportPersons;
  /**
   * Files a PostHog batch export's run manifest lists that are not there (in a folder or under a
   * prefix), in words: the others were staged, and the run fails once it has said so.
   */
  incomplete?: string[];
  /** Files found in a folder that could not be read, in words: the others were staged, and the run fails once it has said so. */
  unreadable: string[];
  /** Sources staged before and unchanged since, by path: not read again (see staging/unchanged-reads.ts). */
  unchanged: string[];
  /** Interrupted reads of files not staged by this run: resumed when those files are staged again. */
  partial: PartialRead[];
  elapsedMs: number;
}
