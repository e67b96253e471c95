/**
 * What a run will do with a file, decided for every file before any row is staged: read it
 * for the first time, resume its interrupted read, or read it again. Reading it again with
 * other content-shaping options is refused here, up front, unless the change only widens or
 * the user passes --replace-changed (see content-options.ts).
 *
 * A read that cannot be resumed (a stream, which cannot be read twice; a file holding one JSON
 * array, whose pieces record no point in the text) and was interrupted is undone, and the file
 * read from its start. A stream's name (`<stdin>`, `/dev/fd/63`) says nothing of its content: its
 * earlier reads under that name are other data, so they are neither compared with it nor
 * withdrawn when their rows are not in it.
 */
import { RefusedError } from '../errors.js';
import { latestRead, type ReadRecord } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import { contentChanges, describeChange, type OptionChange } from './content-options.js';

export interface FilePlan {
  /** The latest earlier read of the file (not undone), if any; never for a stream. */
  previous: ReadRecord | undefined;
  /** The latest earlier read under this name, a stream's too: its default timestamp is reused. */
  latest: ReadRecord | undefined;
  /** An interrupted read that cannot be resumed, undone before the file is read from its start; and why. */
  undo: { read: ReadRecord; why: string } | undefined;
  /** A stream: read once, unrelated to earlier reads under its name. */
  stream: boolean;
  /** Its interrupted read, to resume from its last written piece (same options, progress recorded). */
  resume: ReadRecord | undefined;
  /** Content-shaping options that changed since `previous` (allowed: widening, or --replace-changed). */
  changes: OptionChange[];
  /** The read records points it can be resumed at (not a stream, not a JSON array). */
  resumable: boolean;
}

export interface PlanInput {
  path: string;
  displayName: string;
  /** The options this run records with the read. */
  recordedOptions: Record<string, unknown>;
  replaceChanged: boolean;
  /** The format's text can be cut and resumed at a piece boundary. */
  resumable: boolean;
  /** A stream (standard input, a pipe, a FIFO). */
  stream: boolean;
}

function notResumable(input: PlanInput): string {
  return input.stream ? 'a stream is read once and cannot be read again' : "a JSON array's read records no point in the text to resume at";
}

/** The plan for one file, or the changed options that refuse it (as lines), without throwing. */
export function planFile(store: StagingStore, input: PlanInput): FilePlan | { refused: string[] } {
  const latest = latestRead(store, input.path);
  const interrupted = latest?.status === 'reading' && latest.supersededBy === null ? latest : undefined;
  const undo = interrupted !== undefined && !input.resumable ? { read: interrupted, why: notResumable(input) } : undefined;
  const previous = input.stream ? undefined : latest;
  const changes = previous === undefined ? [] : contentChanges(previous.options, input.recordedOptions);
  const refused = changes.filter((c) => !c.widens);
  if (refused.length > 0 && !input.replaceChanged) return { refused: refused.map(describeChange) };
  const resume = interrupted?.progress != null && changes.length === 0 && input.resumable ? interrupted : undefined;
  return { previous, latest, undo, stream: input.stream, resume, changes, resumable: input.resumable };
}

/** Plans every file, refusing the run (naming every file and option) when any is refused. */
export function planFiles(store: StagingStore, inputs: readonly PlanInput[]): FilePlan[] {
  const plans = inputs.map((input) => ({ input, plan: planFile(store, input) }));
  const refused = plans.filter((p): p is { input: PlanInput; plan: { refused: string[] } } => 'refused' in p.plan);
  if (refused.length > 0) {
    const lines = refused.flatMap(({ input, plan }) => [`${input.displayName} was staged earlier with other options that shape its events:`, ...plan.refused.map((l) => `  ${l}`)]);
    throw new RefusedError(lines.join('\n'), [
      'Staging it again so would stage its rows a second time with other content or at other times: two versions of each event.',
      'Start a new staging file for the new options (--staging other.db), or pass --replace-changed to withdraw the rows staged from it that are not yet delivered and stage them again with the new options.',
    ]);
  }
  return plans.map((p) => p.plan as FilePlan);
}
