/**
 * The run of every staging command (export-source, identify-users, identify-groups): stage
 * the sources with progress on stderr and Ctrl-C as an abort, then print the result.
 */
import { resolve } from 'node:path';
import { stageSources, type StageSourcesInput } from '../../../stage-sources/stage-sources.js';
import { isSqliteError } from '../../../sqlite/storage-failure.js';
import { stagingFailure } from '../../../staging/staging-failure.js';
import { stagingLogPath } from '../../terminal/interrupts.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentStaging } from './staging-output.js';

export async function runStaging(input: StageSourcesInput, output: { quiet?: boolean; json?: boolean }): Promise<void> {
  const json = output.json === true;
  const result = await withTerminal({ quiet: output.quiet === true || json, interrupts: true, log: { file: stagingLogPath(input.staging), command: input.command } }, (reporter, signal) =>
    // Reads of the staging file outside its transactions fail unexplained otherwise (a damaged page).
    stageSources(input, reporter, signal).catch((error: unknown) => Promise.reject(isSqliteError(error) ? stagingFailure(error, resolve(input.staging)) : error)),
  );
  presentStaging(result, json);
}
