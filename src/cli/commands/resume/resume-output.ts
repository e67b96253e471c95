/** What resume prints: the run's summary (as import prints it), or that there is nothing to resume. */
import type { ResumeResult } from '../../../import/resume-import.js';
import { print } from '../../terminal/output.js';
import { presentRun } from '../import/run-output.js';

export function presentResume(result: ResumeResult, json: boolean): void {
  if (result.type === 'resumed') {
    presentRun(result.summary, json, result.next);
    return;
  }
  print(result.project ? `Nothing to resume for project ${result.project}: its last import finished.` : 'Nothing to resume: every import finished.');
}
