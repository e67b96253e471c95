/**
 * The common run of a staging command: Ctrl-C watch, progress, stage the files, print the
 * summary (or JSON). export-source, identify-users and identify-groups differ only in options.
 */
import { watchInterrupts } from '../cli/interrupt.js';
import { printJson } from '../cli/output.js';
import { createProgress } from '../cli/progress.js';
import { printExportSummary } from './export-summary.js';
import { stageFiles, type StageFilesOptions } from './stage-files.js';

export async function runStaging(options: Omit<StageFilesOptions, 'progress' | 'signal'>, output: { quiet?: boolean; json?: boolean }): Promise<void> {
  const interrupts = watchInterrupts();
  const progress = createProgress({ quiet: output.quiet || output.json });
  try {
    const result = await stageFiles({ ...options, progress, signal: interrupts.signal });
    if (output.json) printJson(result);
    else printExportSummary(result);
  } finally {
    progress.stop();
    interrupts.dispose();
  }
}

/** Repeatable option collector for commander. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
