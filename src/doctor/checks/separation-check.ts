/**
 * Check 3: test and production are different projects. Their keys differ and, where project
 * ids are configured, so do the ids on the same host. Pure.
 */
import { ok, problem, warning, type CheckResult } from '../check-result.js';
import type { SeparationFacts } from '../doctor-facts.js';
import { sharedProjectProblem } from '../../import/import-rules.js';

const SEPARATE_FIX =
  'Give the test and production projects their own PostHog projects (each with its own project API key and projectId) in the config: a rehearsal sent into production cannot be deleted.';

export function separationCheck(facts: SeparationFacts): CheckResult {
  const { target } = facts;
  const others = facts.others.filter((o) => o.role !== target.role);
  const opposite = target.role === 'test' ? 'production' : 'test';
  if (others.length === 0) return ok('separate-projects', `no ${opposite} project in the config to compare "${target.name}" with`);
  const unreadable: string[] = [];
  const compared: string[] = [];
  for (const other of others) {
    const apiKey = typeof other.apiKey === 'string' ? other.apiKey : undefined;
    const shared = sharedProjectProblem(target.name, [target, { ...other, apiKey }]);
    if (shared !== undefined) return problem('separate-projects', shared, SEPARATE_FIX);
    if (apiKey === undefined) unreadable.push(`"${other.name}" (${(other.apiKey as { unavailable: string }).unavailable})`);
    else compared.push(other.projectId !== undefined && target.projectId !== undefined ? `"${other.name}" (${other.role}, project ${other.projectId})` : `"${other.name}" (${other.role})`);
  }
  if (unreadable.length > 0) {
    return warning(
      'separate-projects',
      `the key of ${unreadable.join(', ')} could not be read, so it was not compared with the key of "${target.name}"`,
      'Run `migrate doctor` where every project key of the config can be read.',
    );
  }
  const withIds = target.projectId !== undefined && compared.some((c) => c.includes(', project '));
  const self = withIds ? `"${target.name}" (${target.role}, project ${target.projectId})` : `"${target.name}" (${target.role})`;
  return ok('separate-projects', `${self} and ${compared.join(', ')} are different projects: their keys${withIds ? ' and project ids' : ''} differ`);
}
