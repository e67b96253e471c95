/**
 * Mixpanel's raw event export (`GET /api/2.0/export`), one request per day: `from_date` and
 * `to_date` both the day (inclusive, in the project's days: UTC for projects created from 2023,
 * the project's time zone before), `project_id`, Basic credentials of a service account; the
 * answer is JSON lines, each ending with a newline, gzipped when asked. Limits: 60 queries an hour, 3 a second, and a 429
 * beyond them. Pure.
 */
import type { Verdict } from '../http/classify-outcome.js';
import { jsonLinesProblem } from './answer-checks.js';
import { formatDay, type Span } from './api-ranges.js';
import { authVerdict, type ApiSource, type RangeVerdict } from './api-source.js';

const HOUR_MS = 3_600_000;

function judge(verdict: Verdict, _status: number | undefined, span: Span, target: Parameters<ApiSource['judge']>[3]): RangeVerdict {
  const day = formatDay(span.first);
  switch (verdict.type) {
    case 'ok':
      return { type: 'data' };
    case 'retry':
      return { type: 'failed', message: `Mixpanel kept failing for ${day} (${verdict.reason})` };
    case 'too-slow':
      return { type: 'failed', message: `Mixpanel answered HTTP ${verdict.status} for ${day} (${verdict.message})` };
    case 'too-large':
      return { type: 'stop', kind: 'remote', message: `Mixpanel refused the request for ${day} (${verdict.reason})` };
    case 'rejected':
      // Every day would be refused alike (a wrong project id, a date Mixpanel does not take).
      return { type: 'stop', kind: 'remote', message: `Mixpanel refused the request for ${day} (HTTP 400: ${verdict.message}); check sources.mixpanel.projectId` };
    case 'fatal':
      if (verdict.kind === 'auth') return authVerdict('Mixpanel', verdict.status, verdict.message, target);
      if (verdict.status === 404) {
        return { type: 'stop', kind: 'remote', message: `no Mixpanel export API at ${target.baseUrl} (HTTP 404); check sources.mixpanel.region or apiHost` };
      }
      return { type: 'stop', kind: 'remote', message: `Mixpanel's answer for ${day}: ${verdict.message}` };
  }
}

export const MIXPANEL_EXPORT: ApiSource = {
  name: 'mixpanel-api',
  vendor: 'Mixpanel',
  format: 'mixpanel',
  unit: 'day',
  concurrency: { default: 3, max: 3 },
  defaultMaxPerHour: 60,
  // Its documented 3 a second.
  paceCeilingPerSec: 3,
  limits: (maxPerHour) =>
    maxPerHour <= 0
      ? []
      : [
          { max: maxPerHour, windowMs: HOUR_MS },
          { max: 3, windowMs: 1000 },
        ],
  bounds: (span) => ({ start: formatDay(span.first), end: formatDay(span.last) }),
  request(target, span) {
    // Milliseconds: times exactly as Mixpanel holds them (its reader takes seconds and milliseconds alike).
    const query = new URLSearchParams({ from_date: formatDay(span.first), to_date: formatDay(span.last), project_id: target.projectId ?? '', time_in_ms: 'true' });
    return {
      url: `${target.baseUrl}/api/2.0/export?${query}`,
      headers: { authorization: target.authorization, accept: 'text/plain', 'accept-encoding': 'gzip' },
    };
  },
  splitsOn: () => false,
  judge,
  answerProblem: jsonLinesProblem,
};
