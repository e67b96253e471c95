/**
 * Check 7: billing. PostHog drops events over a billing limit while still answering 200, so a
 * migration into an organization at its limit looks delivered and stores nothing. What the API
 * says about the organization's events usage and limit (`GET /api/billing/`) is compared with
 * what is staged; without it, the advice is to raise the limit first. Pure.
 */
import { count, plural } from '../../util/format.js';
import { ok, problem, warning, type CheckResult } from '../check-result.js';
import type { BillingFacts } from '../doctor-facts.js';

const DROPS = 'PostHog drops events over a billing limit while still answering 200';
const RAISE = "Before importing, check the organization's billing limit for events in PostHog (Settings > Billing) and raise it above what the migration adds.";

export function billingCheck(billing: BillingFacts, stagedEvents: number): CheckResult {
  const staged = `${plural(stagedEvents, 'event')} staged`;
  const details: Record<string, unknown> = { stagedEvents };
  if (billing.state === 'not-checked') return warning('billing', `${staged}; ${DROPS}, and the organization's usage was not read: ${billing.reason}`, RAISE, details);
  if (billing.state === 'unreadable') {
    return warning('billing', `${staged}; ${DROPS}, and the billing API did not answer (${billing.status}: ${billing.message})`, RAISE, details);
  }
  Object.assign(details, { eventsUsage: billing.eventsUsage, eventsLimit: billing.eventsLimit, periodEnd: billing.periodEnd });
  const usage = billing.eventsUsage ?? 0;
  const period = billing.periodEnd !== null ? `, a period that ends ${billing.periodEnd.slice(0, 10)}` : '';
  if (billing.eventsLimit === null) {
    return ok('billing', `${staged}; the organization has no billing limit on events (${count(usage)} events this billing period${period})`, details);
  }
  const limit = `${count(usage)} of its limit of ${count(billing.eventsLimit)} events this billing period${period}`;
  if (usage >= billing.eventsLimit) {
    return problem('billing', `${staged}; the organization has used ${limit}: ${DROPS}, so the migration would look delivered and store nothing`, RAISE, details);
  }
  if (usage + stagedEvents > billing.eventsLimit) {
    return warning('billing', `${staged}; the organization has used ${limit}: the migration may pass the limit (${DROPS}; historical imports may be counted apart from live events)`, RAISE, details);
  }
  return ok('billing', `${staged}; the organization has used ${limit}, room for the migration`, details);
}
