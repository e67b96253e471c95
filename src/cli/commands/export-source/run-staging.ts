/**
 * The run of every staging command (export-source, identify-users, identify-groups): stage
 * the sources with progress on stderr and Ctrl-C as an abort, then print the result; a run
 * that staged nothing and rejected rows then fails (exit 3).
 */
import { resolve } from 'node:path';
import type { Reporter } from '../../../reporter.js';
import { nothingStagedError, stageSources, type StageSourcesInput } from '../../../stage-sources/stage-sources.js';
import { isSqliteError } from '../../../sqlite/storage-failure.js';
import { stagingFailure } from '../../../staging/staging-failure.js';
import { stagingLogPath } from '../../terminal/interrupts.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentStaging } from './staging-output.js';

/**
 * Test hook: `MIGRATE_TEST_KILL_AFTER_PIECES=n` kills the process (SIGKILL, as a power cut
 * would) once n pieces are written, so tests can resume a read cut at a known place.
 */
function withKillHook(reporter: Reporter): Reporter {
  const after = Number(process.env.MIGRATE_TEST_KILL_AFTER_PIECES ?? 0);
  if (!(after > 0)) return reporter;
  let pieces = 0;
  return {
    ...reporter,
    progress(text) {
      reporter.progress(text);
      if (++pieces >= after) process.kill(process.pid, 'SIGKILL');
    },
  };
}

export async function runStaging(input: StageSourcesInput, output: { quiet?: boolean; json?: boolean }): Promise<void> {
  const json = output.json === true;
  const result = await withTerminal({ quiet: output.quiet === true || json, interrupts: true, log: { file: stagingLogPath(input.staging), command: input.command } }, (reporter, signal) =>
    // Reads of the staging file outside its transactions fail unexplained otherwise (a damaged page).
    stageSources(input, withKillHook(reporter), signal).catch((error: unknown) => Promise.reject(isSqliteError(error) ? stagingFailure(error, resolve(input.staging)) : error)),
  );
  presentStaging(result, json);
  const failure = nothingStagedError(result);
  if (failure !== undefined) throw failure;
}
