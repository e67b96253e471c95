/**
 * Check 6b: the staged rows against PostHog's ingestion rules that only the whole file shows.
 * More than 5 group types is a problem (a project takes 5; the others' groups would be lost).
 * Rows staged by a migrate that set no `$geoip_disable` are a warning: PostHog would locate them,
 * and their persons, at the machine that sends them. Pure.
 */
import { groupTypesProblem } from '../../import/ingestion-checks.js';
import { count, plural } from '../../util/format.js';
import { ok, problem, warning, type CheckResult } from '../check-result.js';
import type { StagedRuleFacts } from '../doctor-facts.js';

export function ingestionRulesCheck(rules: StagedRuleFacts | undefined): CheckResult {
  if (rules === undefined) return ok('ingestion-rules', 'no staging file to check yet');
  const tooMany = groupTypesProblem(rules.groupTypes);
  if (tooMany !== undefined) {
    return problem(
      'ingestion-rules',
      tooMany,
      'Stage into a new staging file with at most 5 group types (fewer --group options, and only the groups files of the types kept); import refuses this one.',
      {
        groupTypes: rules.groupTypes.map((g) => g.type),
      },
    );
  }
  if (rules.olderGeoReads.length > 0) {
    const rows = rules.olderGeoReads.reduce((n, r) => n + r.staged, 0);
    const files = rules.olderGeoReads.map((r) => r.path).join(', ');
    return warning(
      'ingestion-rules',
      `${plural(rules.olderGeoReads.length, 'read')} staged by an older migrate (${files}) set no $geoip_disable: PostHog would locate their ${count(rows)} rows, and their persons, at this machine`,
      'Stage those files again into a new staging file (--staging new.db): rows without their own $ip then carry $geoip_disable.',
      { olderGeoReads: rules.olderGeoReads },
    );
  }
  const types = rules.groupTypes.length === 0 ? 'no group types' : `group types ${rules.groupTypes.map((g) => g.type).join(', ')}`;
  return ok('ingestion-rules', `no staged row would be located at this machine; ${types} (PostHog takes 5)`);
}
