/**
 * A source API that export-source fetches from, range by range: how a range is asked for, and
 * what each kind of answer means for the range (stage it, nothing there, split it, give up on
 * it, or stop the run). The shared classifier has judged the HTTP outcome already; this says
 * what the judgement means for this API. Pure.
 */
import type { Verdict } from '../http/classify-outcome.js';
import type { SourceApiTarget } from '../config/resolve-source.js';
import type { AnswerSample } from './answer-sample.js';
import type { Span } from './api-ranges.js';
import type { WindowLimit } from './request-window.js';

export type ApiSourceName = 'mixpanel-api' | 'amplitude-api' | 'posthog-api';

export interface RangeRequest {
  url: string;
  headers: Record<string, string>;
}

/** What an answer means for its range. */
export type RangeVerdict =
  | { type: 'data' }
  | { type: 'empty' }
  /** Too much for one answer: ask for each half. */
  | { type: 'split'; reason: string }
  /** This range cannot be fetched now; the others can. */
  | { type: 'failed'; message: string }
  /** No range can be fetched as configured: stop the run. */
  | { type: 'stop'; kind: 'auth' | 'remote'; message: string };

export interface ApiSource {
  name: ApiSourceName;
  /** The vendor, for messages: "Mixpanel". */
  vendor: string;
  /** The file format its answers are staged as (see sources/formats.ts). */
  format: 'mixpanel' | 'amplitude' | 'posthog';
  /** How a range is fetched: one download (default), or counted then paged through a query API. */
  fetchBy?: 'download' | 'query';
  /** Bytes one range's answer should come near, when ranges are sized from the data. */
  targetBytes?: number;
  /** What one unit of a range is. */
  unit: 'day' | 'hour';
  /** Requests at once, by default and at most. */
  concurrency: { default: number; max: number };
  /** The request limits, given the most requests an hour asked for (0: none). */
  limits(maxPerHour: number): WindowLimit[];
  /** Most requests an hour by default (0: none). */
  defaultMaxPerHour: number;
  /** The most the pace of its requests may reach, in requests per second (reader-pace.ts), while the limits are on. */
  paceCeilingPerSec: number;
  /** The names of a range's bounds, as the ledger records them. */
  bounds(span: Span): { start: string; end: string };
  request(target: SourceApiTarget & { projectId?: string }, span: Span): RangeRequest;
  /** A transient failure to act on rather than retry (a gateway timeout on a long range); `status` is the answer's, if any. */
  splitsOn(status: number | undefined, span: Span): boolean;
  judge(verdict: Verdict, status: number | undefined, span: Span, target: SourceApiTarget): RangeVerdict;
  /** Why a whole 2xx answer is not an export (an HTML page, an error object, a cut body): it is retried as a failed attempt. */
  answerProblem(sample: AnswerSample): string | undefined;
}

/** A refusal of the credentials stops the run at once, naming where they came from. */
export function authVerdict(vendor: string, status: number | undefined, message: string, target: SourceApiTarget): RangeVerdict {
  return {
    type: 'stop',
    kind: 'auth',
    message: `${vendor} refused the credentials (HTTP ${status ?? '?'}: ${message}); check ${target.credentialSettings}`,
  };
}
