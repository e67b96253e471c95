/**
 * Check 1: the host is a PostHog ingestion endpoint. An empty batch stores nothing, and
 * PostHog's capture answers it with a 400 that names the empty batch. Any other answer (an HTML
 * page, a redirect to a login, a 200 that accepts anything) is a wrong host, a proxy or the web
 * app's address. Pure.
 */
import { ok, problem, warning, type CheckResult } from '../check-result.js';
import type { HostFacts, ProbeAnswer } from '../doctor-facts.js';

const HOST_FIX = 'Set "host" to your ingestion endpoint (https://us.i.posthog.com, https://eu.i.posthog.com, or your own instance), or "region": "us" | "eu", in the config.';

/** "HTTP 200, text/html, body: <!DOCTYPE html>..." for messages: status, content type, the first 200 characters. */
export function describeAnswer(answer: ProbeAnswer): string {
  const type = answer.contentType === '' ? 'no content type' : answer.contentType;
  const body = answer.bodyStart === '' ? 'empty body' : `body: ${answer.bodyStart}`;
  const location = answer.location !== undefined ? `, location: ${answer.location}` : '';
  return `HTTP ${answer.status}, ${type}${location}, ${body}`;
}

function isHtml(answer: ProbeAnswer): boolean {
  return /html/i.test(answer.contentType) || /^\s*<(!doctype|html|head|body)/i.test(answer.bodyStart);
}

/** PostHog's 400 for an empty batch: "request holds no event" (code `empty_batch` on newer servers). */
function namesEmptyBatch(answer: ProbeAnswer): boolean {
  return answer.status === 400 && !isHtml(answer) && /no event|empty[ _]batch|empty/i.test(answer.bodyStart);
}

/** Capture checked the key before the batch: its own 401 wording, not a page. */
function capturesTokenRefusal(answer: ProbeAnswer): boolean {
  return answer.status === 401 && !isHtml(answer) && /api[ _]key|token/i.test(answer.bodyStart);
}

function whatItIs(answer: ProbeAnswer): string {
  if (answer.status >= 300 && answer.status < 400) return "a redirect (to a login page, or from the web app's address): not the ingestion endpoint";
  if (isHtml(answer)) return "an HTML page: the web app's address, or a proxy in front of something else";
  if (answer.status >= 200 && answer.status < 300) return "a success for a batch with no event: a server that accepts anything, not PostHog's capture";
  return "not the answer PostHog's capture gives to an empty batch";
}

export function hostCheck(facts: HostFacts): CheckResult {
  const mapped = facts.configuredHost !== undefined ? ` (configured as ${facts.configuredHost}, PostHog's app host, mapped to its ingestion host)` : '';
  const probe = facts.emptyBatch;
  if (probe.type === 'not-sent') return warning('host', `${facts.host}${mapped} was not checked: ${probe.reason}`, HOST_FIX);
  if (probe.type === 'unreachable') {
    return problem('host', `cannot reach ${facts.host}${mapped}: ${probe.reason}`, `Check the host in the config and this machine's network. ${HOST_FIX}`);
  }
  const answer = probe.answer;
  if (namesEmptyBatch(answer)) {
    return ok('host', `${facts.host}${mapped} is a PostHog ingestion endpoint: it answered an empty batch with ${describeAnswer(answer)}`);
  }
  if (capturesTokenRefusal(answer)) {
    return ok('host', `${facts.host}${mapped} answers as PostHog's capture does (${describeAnswer(answer)}); the key check says whether the key is known`);
  }
  if (answer.status === 429 || answer.status >= 500) {
    return warning(
      'host',
      `${facts.host}${mapped} is busy or down (${describeAnswer(answer)}); it could not be confirmed as a PostHog ingestion endpoint`,
      'Run `migrate doctor` again in a few minutes.',
    );
  }
  return problem('host', `${facts.host}${mapped} is not a PostHog ingestion endpoint: an empty batch got ${describeAnswer(answer)}, ${whatItIs(answer)}`, HOST_FIX);
}
