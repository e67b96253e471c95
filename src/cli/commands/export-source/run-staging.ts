/**
 * The run of every staging command (export-source, identify-users, identify-groups): stage
 * the sources with progress on stderr and Ctrl-C as an abort, then print the result; a run
 * that staged nothing and rejected rows, or whose batch-export manifests list files that are
 * missing, then fails (exit 3).
 */
import { incompleteRunError, nothingStagedError, type StageSourcesInput } from '../../../stage-sources/stage-sources.js';
import { runStageSources } from '../../../stage-sources/stage-run.js';
import { stagingLogPath } from '../../terminal/interrupts.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentStaging } from './staging-output.js';

export async function runStaging(input: StageSourcesInput, output: { quiet?: boolean; json?: boolean }): Promise<void> {
  const json = output.json === true;
  const result = await withTerminal({ quiet: output.quiet === true || json, interrupts: true, log: { file: stagingLogPath(input.staging), command: input.command } }, (reporter, signal) =>
    runStageSources(input, reporter, signal),
  );
  presentStaging(result, json);
  const failure = nothingStagedError(result) ?? incompleteRunError(result);
  if (failure !== undefined) throw failure;
}
