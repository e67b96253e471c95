/** The checks, in the order doctor prints them, each a pure function of the gathered facts. */
import { billingCheck } from './checks/billing-check.js';
import { existingDataCheck } from './checks/data-check.js';
import { hostCheck } from './checks/host-check.js';
import { ingestionRulesCheck } from './checks/ingestion-rules-check.js';
import { keyCheck } from './checks/key-check.js';
import { clockCheck, diskCheck, nodeCheck } from './checks/machine-checks.js';
import { scopeCheck } from './checks/scope-check.js';
import { separationCheck } from './checks/separation-check.js';
import { doctorReport, type CheckResult, type DoctorReport } from './check-result.js';
import type { DoctorFacts } from './doctor-facts.js';

export function runChecks(facts: DoctorFacts): DoctorReport {
  return doctorReport(facts.project, facts.host.host, [
    hostCheck(facts.host),
    keyCheck(facts.key),
    separationCheck(facts.separation),
    scopeCheck(facts.personalKey),
    diskCheck(facts.machine),
    clockCheck(facts.machine),
    nodeCheck(facts.machine),
    existingDataCheck(facts.staged, facts.projectEvents),
    ingestionRulesCheck(facts.staged?.rules),
    billingCheck(facts.billing, facts.staged?.summary.total ?? 0),
  ]);
}

/** A check as lines of text: "problem  project-key  <message>", then its fix, indented. */
export function checkLines(check: CheckResult): string[] {
  const head = `${check.verdict.padEnd(8)} ${check.check.padEnd(18)} ${check.message}`;
  return check.fix === undefined ? [head] : [head, `${' '.repeat(28)}fix: ${check.fix}`];
}
