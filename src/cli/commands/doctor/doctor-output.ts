/** What doctor prints: one line per check with its verdict (and what to do), or the report as JSON. */
import type { DoctorReport } from '../../../doctor/check-result.js';
import { checkLines } from '../../../doctor/run-checks.js';
import { plural } from '../../../util/format.js';
import { print, printJson } from '../../terminal/output.js';

function summary(report: DoctorReport): string {
  if (report.checks.some((c) => c.check === 'source-project')) {
    return report.problems > 0
      ? `${plural(report.problems, 'problem')}: export-source --from posthog-api cannot read this project until each is fixed.`
      : 'No problem found: export-source --from posthog-api can read this project.';
  }
  if (report.verdict === 'ok') return 'No problem found: nothing stands in the way of the import.';
  const parts = [report.problems > 0 ? plural(report.problems, 'problem') : '', report.warnings > 0 ? plural(report.warnings, 'warning') : ''].filter(Boolean);
  const outcome = report.problems > 0 ? 'import will refuse to send until each problem is fixed' : 'import will send, showing the warnings';
  return `${parts.join(', ')}: ${outcome}.`;
}

export function presentDoctor(report: DoctorReport, json: boolean): void {
  if (json) {
    printJson(report);
    return;
  }
  print(`Doctor: project ${report.project} at ${report.host}`);
  for (const check of report.checks) for (const line of checkLines(check)) print(`  ${line}`);
  print(summary(report));
}
