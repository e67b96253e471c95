/**
 * Mixpanel's Engage API (`POST /api/query/engage` on the project's region: mixpanel.com,
 * eu.mixpanel.com, in.mixpanel.com), which lists a project's user profiles, or one group key's
 * group profiles (`data_group_id`). A form body; the first answer opens a listing session
 * (`session_id`), each next page repeats the call with it and `page + 1`; a page shorter than
 * `page_size` is the last. The Query API allows 60 queries an hour and 5 at once.
 */
import { z } from 'zod';
import type { Verdict } from '../http/classify-outcome.js';
import { askJson, notAnAnswer, type QueryCallOptions } from './query-range.js';
import type { DownloadResult } from './range-download.js';
import type { RangeRequest } from './api-source.js';

export const ENGAGE_QUERIES_PER_HOUR = 60;
/** The pace's ceiling for its pages, in requests per second: none, as Mixpanel publishes no per-second limit for the Query API (the pace still slows down at refusals). */
export const ENGAGE_PACE_CEILING_PER_SEC = Number.POSITIVE_INFINITY;

/** Where a listing stands: the session of its first answer and the page asked next. */
export interface EngagePlace {
  sessionId?: string;
  page: number;
}

const answerSchema = z.looseObject({
  results: z.array(z.unknown()),
  page: z.coerce.number().int().nonnegative().optional(),
  page_size: z.coerce.number().int().positive().optional(),
  session_id: z.coerce.string().optional(),
  total: z.coerce.number().int().nonnegative().optional(),
});

export interface EngagePage {
  results: unknown[];
  page: number;
  pageSize: number;
  sessionId?: string;
  total?: number;
  /** Fewer results than a page holds: the listing ends here. */
  last: boolean;
}

/** The Engage endpoint of a project, with its credentials. */
export function engageRequest(queryBaseUrl: string, authorization: string): RangeRequest {
  return {
    url: `${queryBaseUrl}/api/query/engage`,
    headers: { authorization, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/** The form body of one page: the project, the group key's id for group profiles, and where the listing stands. */
export function engageForm(projectId: string, place: EngagePlace, dataGroupId?: string): string {
  const form = new URLSearchParams({ project_id: projectId });
  if (dataGroupId !== undefined) form.set('data_group_id', dataGroupId);
  if (place.sessionId !== undefined) {
    form.set('session_id', place.sessionId);
    form.set('page', String(place.page));
  }
  return form.toString();
}

export type EngageAsked = { ok: true; page: EngagePage } | { ok: false; result: DownloadResult };

/** One page through the retry loop and the limits. */
export async function askEngagePage(o: QueryCallOptions, body: string, place: EngagePlace): Promise<EngageAsked> {
  const asked = await askJson(o, 'POST', o.request.url, body);
  if (!asked.ok) return asked;
  const parsed = answerSchema.safeParse(asked.json);
  if (!parsed.success) return { ok: false, result: notAnAnswer(200, 'no results list') };
  const a = parsed.data;
  const pageSize = a.page_size ?? 1000;
  if (a.results.length > pageSize) return { ok: false, result: notAnAnswer(200, `${a.results.length} results on a page of ${pageSize}`) };
  if (a.page !== undefined && a.page !== place.page) return { ok: false, result: notAnAnswer(200, `page ${a.page} when page ${place.page} was asked`) };
  return { ok: true, page: { results: a.results, page: place.page, pageSize, sessionId: a.session_id ?? place.sessionId, total: a.total, last: a.results.length < pageSize } };
}

/**
 * A refusal of a page after the first: Mixpanel keeps a listing's session for a while only, and
 * does not document the answer for one that ended; a 400 there is read as an ended session.
 */
export function isEndedSession(result: DownloadResult, place: EngagePlace): boolean {
  if (place.sessionId === undefined || result.type !== 'answered') return false;
  const verdict: Verdict = result.verdict;
  return verdict.type === 'rejected';
}
