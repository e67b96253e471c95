/**
 * The run of export-source from a source API: fetch and stage with progress on stderr and
 * Ctrl-C as an abort, print the result, then end as the result says (a failed range, a source
 * with no data, or every row rejected is not exit 0).
 */
import { apiRunProblem } from '../../../stage-sources/api-run-problem.js';
import { stageFromApi, type StageApiInput } from '../../../stage-sources/stage-api.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { watchUnexpectedErrors } from '../../terminal/unexpected-errors.js';
import { presentApiStaging } from './api-staging-output.js';

export async function runApiStaging(input: StageApiInput, output: { quiet?: boolean; json?: boolean }): Promise<void> {
  const json = output.json === true;
  // An error escaping to the process (inside the HTTP client) stops the fetch in words, its ranges in flight undone.
  const unexpected = watchUnexpectedErrors();
  let result;
  try {
    result = await withTerminal({ quiet: output.quiet === true || json, interrupts: true }, (reporter, signal) => stageFromApi(input, reporter, signal, undefined, undefined, unexpected.signal));
  } finally {
    unexpected.dispose();
  }
  presentApiStaging(result, json);
  const problem = apiRunProblem(result);
  if (problem !== undefined) throw problem;
}
