/**
 * Check 4: the personal key has the scopes the commands use. A key without one still lets the
 * migration run (ingestion takes the project key), so a missing scope is a warning that names
 * what will not work. Pure.
 */
import { ok, warning, type CheckResult } from '../check-result.js';
import type { PersonalKeyFacts } from '../doctor-facts.js';
import { grantsScope, SCOPE_NEEDS, type ScopeNeed } from '../scopes.js';

const ADD_SCOPES = 'Add the scopes to the key in PostHog (Settings > Personal API keys), or configure a key that has them.';
const ADD_KEY =
  'Add "personalApiKey" (or "personalApiKeyEnv") and "projectId" to this project in the config: a personal API key with project:read, query:read and the scopes of the management commands you use.';

function lacking(missing: readonly ScopeNeed[]): string {
  return missing.map((n) => `${n.scope} (${n.usedBy})`).join(', ');
}

function scopedAway(facts: Extract<PersonalKeyFacts, { state: 'listed' }>): CheckResult | undefined {
  if (facts.scopedTeams.length === 0 || facts.scopedTeams.map(String).includes(facts.projectId)) return undefined;
  return warning(
    'scopes',
    `the personal key is limited to projects ${facts.scopedTeams.join(', ')}, not project ${facts.projectId}: none of its calls about this project will work`,
    'Use a key that is not limited to other projects, or add this project to the key in PostHog.',
  );
}

function listedVerdict(facts: Extract<PersonalKeyFacts, { state: 'listed' }>): CheckResult {
  const away = scopedAway(facts);
  if (away !== undefined) return away;
  const missing = SCOPE_NEEDS.filter((n) => !grantsScope(facts.scopes, n.scope));
  const details = { scopes: facts.scopes, missing: missing.map((n) => n.scope) };
  if (missing.length === 0) return ok('scopes', 'the personal key has every scope the commands use', details);
  return warning('scopes', `the personal key lacks ${lacking(missing)}: those will not work; the migration itself does not need them`, ADD_SCOPES, details);
}

function probedVerdict(facts: Extract<PersonalKeyFacts, { state: 'probed' }>): CheckResult {
  const missing = SCOPE_NEEDS.filter((n) => facts.missing.includes(n.scope));
  const unchecked = SCOPE_NEEDS.filter((n) => n.write === true).map((n) => n.scope);
  const note = `(this PostHog does not tell a key its scopes, so each was tried with a read; ${unchecked.join(' and ')} cannot be tried without changing something)`;
  const details = { granted: facts.granted, missing: facts.missing, unchecked };
  if (missing.length === 0) return ok('scopes', `the personal key has every read scope the commands use ${note}`, details);
  return warning('scopes', `the personal key lacks ${lacking(missing)}: those will not work ${note}`, ADD_SCOPES, details);
}

export function scopeCheck(facts: PersonalKeyFacts): CheckResult {
  switch (facts.state) {
    case 'none':
      return warning(
        'scopes',
        'no personal API key is configured: `migrate verify` cannot prove the events landed, the management commands cannot run, and the key and billing checks are weaker',
        ADD_KEY,
      );
    case 'unusable':
      return warning('scopes', `the personal API key cannot be used: ${facts.reason}`, ADD_KEY);
    case 'refused':
      return warning(
        'scopes',
        `the API refused the personal API key (${facts.message}): \`migrate verify\` and the management commands will not work`,
        'Create a new personal API key in PostHog and put it in the config.',
      );
    case 'listed':
      return listedVerdict(facts);
    case 'probed':
      return probedVerdict(facts);
  }
}
