/**
 * Amplitude's Export API (`GET /api/2/export?start=YYYYMMDDTHH&end=YYYYMMDDTHH`, hours inclusive,
 * by upload time), Basic credentials of the API key and secret key. The answer is a zip of
 * gzipped JSON-lines files, one or more per hour; 404 means no data in the range; a range over
 * 4 GB is refused with 400, and a long range may time out with 504: both are split in halves,
 * down to one hour. Pure.
 */
import type { Verdict } from '../http/classify-outcome.js';
import { zipProblem } from './answer-checks.js';
import { formatHour, spanLength, type Span } from './api-ranges.js';
import { authVerdict, type ApiSource, type RangeVerdict } from './api-source.js';

function label(span: Span): string {
  return span.first === span.last ? formatHour(span.first) : `${formatHour(span.first)}-${formatHour(span.last)}`;
}

function tooLarge(span: Span, reason: string): RangeVerdict {
  if (spanLength(span) > 1) return { type: 'split', reason };
  return {
    type: 'failed',
    message: `Amplitude refused the hour ${label(span)} as too large to export at once (${reason}); export that hour with Amplitude's Amazon S3 export and stage its files with --from amplitude`,
  };
}

/** A gateway timeout on a range of several hours: the range is too long to export in time. */
function timedOut(status: number | undefined, span: Span): boolean {
  return status === 504 && spanLength(span) > 1;
}

function judge(verdict: Verdict, status: number | undefined, span: Span, target: Parameters<ApiSource['judge']>[3]): RangeVerdict {
  switch (verdict.type) {
    case 'ok':
      return { type: 'data' };
    case 'retry':
      if (timedOut(status, span)) return { type: 'split', reason: verdict.reason };
      return { type: 'failed', message: `Amplitude kept failing for ${label(span)} (${verdict.reason})` };
    case 'too-slow':
      return { type: 'failed', message: `Amplitude answered HTTP ${verdict.status} for ${label(span)} (${verdict.message})` };
    case 'too-large':
      return tooLarge(span, verdict.reason);
    case 'rejected':
      // The Export API's documented 400: the range holds more than 4 GB.
      return tooLarge(span, `HTTP 400: ${verdict.message}`);
    case 'fatal':
      if (verdict.kind === 'auth') return authVerdict('Amplitude', verdict.status, verdict.message, target);
      if (verdict.status === 404) return { type: 'empty' };
      return { type: 'stop', kind: 'remote', message: `Amplitude's answer for ${label(span)}: ${verdict.message}` };
  }
}

export const AMPLITUDE_EXPORT: ApiSource = {
  name: 'amplitude-api',
  vendor: 'Amplitude',
  format: 'amplitude',
  unit: 'hour',
  // Ranges are planned one after another, each sized from the answers before it.
  concurrency: { default: 1, max: 1 },
  defaultMaxPerHour: 0,
  // Amplitude publishes no rate limit: no ceiling, the pace only slows down at refusals.
  paceCeilingPerSec: Number.POSITIVE_INFINITY,
  limits: (maxPerHour) => (maxPerHour <= 0 ? [] : [{ max: maxPerHour, windowMs: 3_600_000 }]),
  bounds: (span) => ({ start: formatHour(span.first), end: formatHour(span.last) }),
  request(target, span) {
    const query = new URLSearchParams({ start: formatHour(span.first), end: formatHour(span.last) });
    return { url: `${target.baseUrl}/api/2/export?${query}`, headers: { authorization: target.authorization } };
  },
  splitsOn: timedOut,
  judge,
  answerProblem: zipProblem,
};
