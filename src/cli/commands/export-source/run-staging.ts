/**
 * The run of every staging command (export-source, identify-users, identify-groups): stage
 * the sources with progress on stderr and Ctrl-C as an abort, then print the result; a run
 * that staged nothing and rejected rows then fails (exit 3).
 */
import type { Reporter } from '../../../reporter.js';
import { nothingStagedError, stageSources, type StageSourcesInput } from '../../../stage-sources/stage-sources.js';
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
  const result = await withTerminal({ quiet: output.quiet === true || json, interrupts: true }, (reporter, signal) =>
    stageSources(input, withKillHook(reporter), signal),
  );
  presentStaging(result, json);
  const failure = nothingStagedError(result);
  if (failure !== undefined) throw failure;
}
