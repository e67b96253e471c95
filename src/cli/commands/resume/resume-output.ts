/** What resume prints: the run's summary (as import prints it), or that there is nothing to resume (as JSON too with --json). */
import type { ResumeResult } from '../../../import/resume-import.js';
import type { CommandPlace } from '../../../util/migrate-command.js';
import { print, printJson } from '../../terminal/output.js';
import { presentRun } from '../import/run-output.js';

export function presentResume(result: ResumeResult, json: boolean, place: CommandPlace = {}): void {
  if (result.type === 'resumed') {
    presentRun(result.summary, json, result.next, place);
    return;
  }
  if (json) printJson(result);
  else print(result.message);
}
