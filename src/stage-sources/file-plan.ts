/**
 * What a run will do with a file, decided for every file before any row is staged: read it
 * for the first time, resume its interrupted read, or read it again. Reading it again with
 * other content-shaping options is refused here, up front, unless the change only widens or
 * the user passes --replace-changed (see content-options.ts).
 */
import { RefusedError } from '../errors.js';
import { latestRead, type ReadRecord } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import { contentChanges, describeChange, type OptionChange } from './content-options.js';

export interface FilePlan {
  /** The latest earlier read of the file (not undone), if any. */
  previous: ReadRecord | undefined;
  /** Its interrupted read, to resume from its last written piece (same options, progress recorded). */
  resume: ReadRecord | undefined;
  /** Content-shaping options that changed since `previous` (allowed: widening, or --replace-changed). */
  changes: OptionChange[];
}

export interface PlanInput {
  path: string;
  displayName: string;
  /** The options this run records with the read. */
  recordedOptions: Record<string, unknown>;
  replaceChanged: boolean;
  /** The format's text can be cut and resumed at a piece boundary. */
  resumable: boolean;
}

/** The plan for one file, or the changed options that refuse it (as lines), without throwing. */
export function planFile(store: StagingStore, input: PlanInput): FilePlan | { refused: string[] } {
  const previous = latestRead(store, input.path);
  const changes = previous === undefined ? [] : contentChanges(previous.options, input.recordedOptions);
  const refused = changes.filter((c) => !c.widens);
  if (refused.length > 0 && !input.replaceChanged) return { refused: refused.map(describeChange) };
  const partial = previous?.status === 'reading' && previous.supersededBy === null && previous.progress !== null;
  const resume = partial && changes.length === 0 && input.resumable ? previous : undefined;
  return { previous, resume, changes };
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
