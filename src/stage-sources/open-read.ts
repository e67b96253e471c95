/**
 * Where a file's read starts: a new read, or its interrupted read resumed after its last
 * written piece when the file is the same up to there (else undone and read again), and the
 * summary it starts from.
 */
import { InputError } from '../errors.js';
import type { SourceInput } from '../sources/open-input.js';
import { abandonRead, beginRead, readRejects, supersedeRead } from '../staging/source-reads.js';
import { readNotes } from '../staging/read-notes.js';
import type { FilePlan } from './file-plan.js';
import type { ReadStart } from './piece-cuts.js';
import { emptyResult, SHOWN_REJECTS } from './stage-piece.js';
import type { FileSummary, StageFileOptions } from './stage-file-options.js';
import type { ReadProgress } from '../staging/source-reads.js';
import { newProgress, skipStagedText, type TextProgress } from './text-progress.js';

/** A read begun: its id, the input (opened again if the file changed), where its text starts. */
export interface OpenedRead {
  readId: number;
  input: SourceInput;
  start: ReadStart;
  plan: FilePlan;
  restarted?: string;
}

/** The summary a read starts from: zero, or what its interrupted run already staged. */
export function startSummary(options: StageFileOptions, plan: FilePlan, input: SourceInput): FileSummary {
  const summary: FileSummary = { ...emptyResult(), path: input.path, displayName: input.displayName, fingerprint: undefined, withdrawn: [] };
  const resumed = plan.resume;
  if (resumed?.progress == null) return summary;
  Object.assign(summary, resumed.counts);
  summary.skippedByReason = { ...resumed.skippedBy };
  const rejects = readRejects(options.store, resumed.id, SHOWN_REJECTS);
  summary.rejectedByReason = rejects.byReason;
  summary.firstRejects = rejects.first as FileSummary['firstRejects'];
  summary.notes = readNotes(options.store, resumed.id);
  summary.resumedAtLine = resumed.progress.line;
  summary.rowsReadBeforeResume = resumed.counts.rowsRead;
  return summary;
}

/**
 * The text after the staged part: read from its byte when the source can and is the object the
 * read began on (a plain UTF-8 bucket object of the same ETag), made from its line when the
 * source can (a Parquet file, checked by its key), else skipped to by hashing it.
 */
async function restOfText(input: SourceInput, progress: ReadProgress, tracker: TextProgress): Promise<AsyncIterable<string> | undefined> {
  const ranged = input.rangedText;
  if (ranged !== undefined && progress.bytes != null && progress.etag === ranged.etag) {
    const { text, afterCr } = await ranged.textFromByte(progress.bytes);
    tracker.continueAt(progress, afterCr);
    return text;
  }
  if (input.resumable === undefined) return skipStagedText(input.text, progress, tracker);
  if (progress.fingerprint !== input.resumable.key) return undefined;
  tracker.chars = progress.chars;
  return input.resumable.textFromLine(progress.line);
}

/** Resumes the interrupted read when the file is the same up to its last piece; else a new read. */
export async function openRead(options: StageFileOptions, plan: FilePlan): Promise<OpenedRead> {
  const { store } = options;
  let input = options.input;
  const resumed = plan.resume;
  let restarted: string | undefined;
  if (plan.undo !== undefined) {
    // Rows of it stay staged when an earlier read staged them too.
    abandonRead(store, plan.undo.read.id, `undone: interrupted, and ${plan.undo.why}`);
    restarted = `its interrupted read (started ${plan.undo.read.startedAt}) was undone: ${plan.undo.why}`;
    options.onNotice?.(`note: ${input.displayName}: ${restarted}; staging it from the start`);
  }
  if (resumed?.progress != null) {
    const tracker = newProgress(input);
    const rest = await restOfText(input, resumed.progress, tracker);
    if (rest !== undefined) {
      const resume = { chars: resumed.progress.chars, line: resumed.progress.line, header: resumed.header, afterCr: tracker.endsInCr };
      return { readId: resumed.id, input, start: { text: rest, tracker, resumable: true, resume }, plan };
    }
    options.onNotice?.(`note: ${input.displayName} changed since its interrupted read (started ${resumed.startedAt}); staging it again from the start`);
    restarted = `it changed since its interrupted read (started ${resumed.startedAt})`;
    if (options.reopen === undefined) {
      const readId = beginRead(store, { path: input.path, format: options.format, command: options.command, sizeBytes: input.sizeBytes, options: options.recordedOptions });
      supersedeRead(store, resumed.id, readId);
      abandonRead(store, readId, 'the file changed since its interrupted read');
      throw new InputError(`${input.displayName}: changed since its interrupted read, and cannot be read again in this run`, ['Run the same command again: it stages the file from the start.']);
    }
    input = await options.reopen();
  }
  return { readId: beginNewRead(options, plan, input), input, start: { text: input.text, tracker: newProgress(input), resumable: plan.resumable }, plan: { ...plan, resume: undefined }, restarted };
}

/** A new read of `input`, superseding an interrupted one it does not resume. */
export function beginNewRead(options: StageFileOptions, plan: FilePlan, input: SourceInput): number {
  const readId = beginRead(options.store, {
    path: input.path,
    format: options.format,
    command: options.command,
    sizeBytes: input.sizeBytes,
    options: options.recordedOptions,
    resumable: plan.resumable,
    etag: input.rangedText?.etag,
  });
  if (plan.undo === undefined && plan.previous?.status === 'reading' && plan.previous.supersededBy === null) supersedeRead(options.store, plan.previous.id, readId);
  return readId;
}
