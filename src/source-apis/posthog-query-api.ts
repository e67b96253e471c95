/**
 * Another PostHog project as a source, read through its query API (`POST
 * /api/projects/:id/query/`, a HogQLQuery, a personal key with `query:read`): windows of hours,
 * each counted and then paged (see posthog-queries.ts); a window ClickHouse finds too slow
 * (HTTP 512 on its estimate, 504 at its limit) is asked for in halves. Limits as PostHog states them for
 * API queries on Cloud: 240 a minute, 2,400 an hour, 3 at once (some projects: 120 an hour,
 * given with --max-requests-per-hour). Pure.
 */
import type { Verdict } from '../http/classify-outcome.js';
import { formatHour, spanLength, type Span } from './api-ranges.js';
import { authVerdict, type ApiSource, type RangeVerdict } from './api-source.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

function judge(verdict: Verdict, _status: number | undefined, span: Span, target: Parameters<ApiSource['judge']>[3]): RangeVerdict {
  const hours = `${formatHour(span.first)}-${formatHour(span.last)}`;
  switch (verdict.type) {
    case 'ok':
      return { type: 'data' };
    case 'retry':
      return { type: 'failed', message: `PostHog kept failing for ${hours} (${verdict.reason})` };
    case 'too-slow':
      return tooSlow(span, hours, `HTTP ${verdict.status}: ${verdict.message}`);
    case 'too-large':
      return { type: 'stop', kind: 'remote', message: `PostHog refused the query for ${hours} (${verdict.reason})` };
    case 'rejected':
      return { type: 'stop', kind: 'remote', message: `PostHog refused the query for ${hours} (HTTP 400: ${verdict.message})` };
    case 'fatal':
      if (verdict.kind === 'auth') return authVerdict('PostHog', verdict.status, verdict.message, target);
      if (verdict.status === 404) return { type: 'stop', kind: 'remote', message: `no PostHog project query API at ${target.baseUrl} (HTTP 404); check the project's apiHost and projectId` };
      return { type: 'stop', kind: 'remote', message: `PostHog's answer for ${hours}: ${verdict.message}` };
  }
}

/** A window ClickHouse found too slow (refused on its estimate, or stopped at its limit): ask for each half, down to one hour. */
function tooSlow(span: Span, hours: string, message: string): RangeVerdict {
  if (spanLength(span) > 1) return { type: 'split', reason: `the query was too slow for PostHog's execution time limit (${message.slice(0, 120)})` };
  return {
    type: 'failed',
    message: `one hour (${hours}) is more than PostHog reads within its execution time limit (${message.slice(0, 120)}); use a batch export for this project (docs/sources.md)`,
  };
}

export const POSTHOG_QUERY: ApiSource = {
  name: 'posthog-api',
  vendor: 'PostHog',
  format: 'posthog',
  fetchBy: 'query',
  // A window a quarter of a GB of answers: a few dozen pages, so a failure costs little.
  targetBytes: 256 * 1024 ** 2,
  unit: 'hour',
  concurrency: { default: 1, max: 3 },
  defaultMaxPerHour: 2400,
  // 240 a minute.
  paceCeilingPerSec: 4,
  limits: (maxPerHour) =>
    maxPerHour <= 0
      ? []
      : [
          { max: maxPerHour, windowMs: HOUR_MS },
          { max: Math.min(240, maxPerHour), windowMs: MINUTE_MS },
        ],
  bounds: (span) => ({ start: formatHour(span.first), end: formatHour(span.last) }),
  request(target) {
    return { url: `${target.baseUrl}/api/projects/${target.projectId ?? ''}/query/`, headers: { authorization: target.authorization, 'content-type': 'application/json', accept: 'application/json' } };
  },
  // 512 and 504 come back as "too slow" (classify-outcome.ts, endpoint "query"), never retried: judge splits.
  splitsOn: () => false,
  // Each answer is JSON checked against its schema as it is read (query-range.ts), not a download to sample.
  answerProblem: () => undefined,
  judge,
};
