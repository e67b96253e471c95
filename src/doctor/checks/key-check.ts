/**
 * Check 2: the project key is a real project's key. Capture checks only a key's shape: a typo,
 * or another project's key, may be answered 200 with every event dropped later. With a personal
 * key, the project's `api_token` must equal the configured key; without one, PostHog's flags
 * endpoint (which checks tokens against its projects) must not answer 401. Pure.
 */
import { ok, problem, warning, type CheckResult } from '../check-result.js';
import type { ApiProject, KeyFacts, Probe } from '../doctor-facts.js';
import { describeAnswer } from './host-check.js';

const COPY_KEY = 'Copy the project API key (phc_...) from the project\'s settings in PostHog into "apiKey" (or the variable named by "apiKeyEnv") of this project in the config.';
const PERSONAL_KEY_HINT = "Configure a personal API key with project:read and the projectId, so doctor can read the project's key from the API.";

function projectName(p: ApiProject): string {
  return `"${p.name}" (id ${p.id})`;
}

const SAME_POSTHOG = 'Point "host" and "apiHost" of this project in the config at the same PostHog (or drop "apiHost" so it follows "host").';

/** The API knows the key; the ingestion host must know it too, or its capture may answer 200 and drop every event. */
function ingestionHostVerdict(facts: Extract<KeyFacts, { via: 'api' }>): CheckResult | undefined {
  const flags = facts.flags;
  if (flags?.type !== 'answer' || flags.answer.status !== 401) return undefined;
  return problem(
    'project-key',
    `the API knows the project key as the key of project ${projectName(facts.project)}, but the ingestion host does not: its flags endpoint answered ${describeAnswer(flags.answer)}; "host" and "apiHost" are not the same PostHog, and events sent to the host may be answered 200 and dropped`,
    SAME_POSTHOG,
  );
}

function apiVerdict(facts: Extract<KeyFacts, { via: 'api' }>): CheckResult {
  if (facts.project.apiToken === facts.configuredKey) {
    const elsewhere = ingestionHostVerdict(facts);
    if (elsewhere !== undefined) return elsewhere;
    return ok('project-key', `the project key is the key of project ${projectName(facts.project)}, as its API says`);
  }
  const owner = facts.others?.find((p) => p.apiToken === facts.configuredKey);
  const whose =
    owner !== undefined
      ? `it is the key of project ${projectName(owner)}`
      : facts.others !== undefined
        ? 'it belongs to no project the personal key can see (a typo, or a key of another organization or host)'
        : 'the personal key cannot list projects to say whose key it is';
  return problem(
    'project-key',
    `the project key is not the key of project ${projectName(facts.project)}, the configured projectId: ${whose}; events sent with it would go elsewhere, or be answered 200 and dropped`,
    COPY_KEY,
  );
}

/** What the flags endpoint's answer says about the key. */
export function flagsVerdict(probe: Probe, why: string): CheckResult {
  if (probe.type === 'not-sent') return warning('project-key', `the project key was not checked: ${probe.reason}`, PERSONAL_KEY_HINT);
  if (probe.type === 'unreachable') return warning('project-key', `the project key could not be checked: the flags endpoint did not answer (${probe.reason})`, PERSONAL_KEY_HINT);
  const answer = probe.answer;
  if (answer.status === 401) {
    return problem('project-key', `PostHog does not know the project key (capture may still answer 200 to it and drop every event): its flags endpoint answered ${describeAnswer(answer)}`, COPY_KEY);
  }
  if (answer.status === 200 && /application\/json/i.test(answer.contentType) && /"(flags|featureFlags)"/.test(answer.bodyStart)) {
    return ok('project-key', `PostHog's flags endpoint knows the project key (one flag request; ${why}, so the project it belongs to is not named)`);
  }
  return warning('project-key', `the project key could not be checked: the flags endpoint answered ${describeAnswer(answer)}`, PERSONAL_KEY_HINT);
}

export function keyCheck(facts: KeyFacts): CheckResult {
  if (facts.via === 'api') return apiVerdict(facts);
  if (facts.via === 'flags') return flagsVerdict(facts.probe, facts.why);
  const flags = flagsVerdict(facts.flags, 'the API did not answer the project');
  const apiNote = `the personal key could not read project ${facts.projectId} (${facts.status}: ${facts.message})`;
  if (flags.verdict !== 'ok') return { ...flags, message: `${apiNote}; ${flags.message}` };
  return warning('project-key', `${apiNote}; ${flags.message}`, 'Check "projectId" of this project in the config: management commands and `migrate verify` use it.');
}
