/**
 * What stageFile is given and what it returns: the types open-read.ts (which begins and resumes a
 * file's read) shares with stage-file.ts, kept apart so neither imports the other.
 */
import type { RulesSpec } from '../events/rules-spec.js';
import type { SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceFormat } from '../sources/source-item.js';
import type { EventWriter } from '../staging/event-writer.js';
import type { ReadCounts } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import type { WithdrawnByRead } from '../staging/withdrawals.js';
import type { PieceResult } from './stage-piece.js';

export interface StageFileOptions {
  store: StagingStore;
  writer: EventWriter;
  input: SourceInput;
  format: string;
  source: SourceFormat;
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  command: string;
  rules: RulesSpec;
  /** Recorded with the read: the options that shape staged content (see content-options.ts). */
  recordedOptions: Record<string, unknown>;
  /**
   * Timestamp (UTC ms) for rows without one (person and group updates). The first read of a
   * file records it and later reads reuse it, so derived uuids stay the same across runs.
   */
  defaultTimestampMs?: number;
  /** Cut UTF-8 JSON lines from their bytes, for the threads that read them to decode (default true; false: as text, as other files). */
  bytePieces?: boolean;
  /** Piece size to aim for: UTF-16 units of text, or bytes of UTF-8 JSON lines cut from their bytes. Default 1 Mi; tests set it small (see stage-run.ts). */
  pieceChars?: number;
  /** stageFile alone (its own pool): worker threads; 0 stages in-process. Default: as defaultWorkers says for the file. */
  workers?: number;
  /** What the source was when opened (see sources/file-identity.ts), recorded once its read is done. */
  identity?: string;
  /** --replace-changed: rows of earlier reads of this file that changed or are gone are withdrawn, delivered or not. */
  replaceChanged?: boolean;
  /** Opens the file again from its start; absent when it cannot be (an archive entry). */
  reopen?: () => Promise<SourceInput>;
  signal?: AbortSignal;
  /** Called after each piece with the counts so far. */
  onProgress?: (counts: ReadCounts) => void;
  /** A line worth showing while staging (a read resumed, a file changed). */
  onNotice?: (text: string) => void;
}

export interface FileSummary extends PieceResult {
  path: string;
  displayName: string;
  fingerprint: string | undefined;
  /** The line this run resumed the file's interrupted read at, if it did. */
  resumedAtLine?: number;
  /** Rows the interrupted run had read, when resumed (counted in rowsRead too). */
  rowsReadBeforeResume?: number;
  /** Why the file's interrupted read was not resumed, when it was staged from its start instead. */
  restarted?: string;
  /** Rows of earlier reads of the file this read withdrew, by reason. */
  withdrawn: WithdrawnByRead[];
}
