/**
 * Fetches one window of a PostHog project through its query API into a spool file, in
 * PostHog's export format: the window's events counted, then read page by page after a
 * `(timestamp, uuid)` cursor, each query through the one retry loop and the request limits.
 * The window is counted again after its last page: the answer is complete only when the rows
 * read equal both counts, and the caller records the window done only then.
 */
import { open } from 'node:fs/promises';
import { z } from 'zod';
import type { Verdict } from '../http/classify-outcome.js';
import type { HttpOutcome } from '../http/http-client.js';
import { sendWithRetry } from '../http/send-with-retry.js';
import type { Span } from './api-ranges.js';
import { countEventsQuery, eventLine, eventPageQuery, rowCapOf, type EventCursor } from './posthog-queries.js';
import type { DownloadResult, RangeCallOptions } from './range-download.js';
import { windowHooks } from './request-window.js';

const answerSchema = z.looseObject({
  results: z.array(z.array(z.unknown())),
  hogql: z.string().nullish(),
  timezone: z.string().nullish(),
});
type QueryAnswer = z.infer<typeof answerSchema>;

/** What the run learns of the instance as it goes: its row cap, its time zone. */
export interface QueryState {
  pageRows: number;
  timezone?: string;
}

/** What one query needs: a range request's options (its endpoint carries the personal key), and a bound per query. */
export interface QueryCallOptions extends RangeCallOptions {
  timeoutMs: number;
}

export interface QueryRangeOptions extends QueryCallOptions {
  span: Span;
  spoolPath: string;
  state: QueryState;
  /** Rows of the window read so far, and how many it holds. */
  onRows(rows: number, expected: number): void;
}

/** A window read: its rows, the count taken before them (`expected`) and the one taken after the last page (`recounted`). */
export type QueryRangeResult = DownloadResult | { type: 'read'; bytes: number; rows: number; expected: number; recounted: number };

export type Asked = { ok: true; answer: QueryAnswer } | { ok: false; result: DownloadResult };

function statusOf(outcome: HttpOutcome): number | undefined {
  return outcome.type === 'response' ? outcome.status : undefined;
}

export function notAnAnswer(status: number | undefined, detail: string): DownloadResult {
  const verdict: Verdict = { type: 'fatal', kind: 'endpoint', status, message: `the query endpoint answered something that is not a query result (${detail})` };
  return { type: 'answered', verdict, status, bytes: 0 };
}

/** One call to the API through the retry loop and the limits: its JSON, or how the attempts ended. */
export async function askJson(o: QueryCallOptions, method: 'GET' | 'POST', url: string, body?: string): Promise<{ ok: true; json: unknown } | { ok: false; result: DownloadResult }> {
  const attempts = await sendWithRetry(
    async () => {
      o.onRequest();
      return { outcome: await o.http.send({ method, url, headers: o.request.headers, body, timeoutMs: o.timeoutMs, signal: o.signal }) };
    },
    {
      policy: o.policy,
      clock: o.clock,
      signal: o.signal,
      ...windowHooks(o.window, o.clock, o.signal, o.onWait),
      onRetry: (verdict, delayMs) => o.onRetry(verdict.reason, delayMs),
      answerAsIs: (answer) => o.splitsOn(statusOf(answer.outcome)),
      endpoint: 'query',
    },
  );
  if (attempts.type === 'abandoned') return { ok: false, result: { type: 'abandoned' } };
  const status = statusOf(attempts.answer.outcome);
  if (attempts.type === 'gave-up') return { ok: false, result: { type: 'gave-up', verdict: attempts.verdict, status, reason: attempts.reason } };
  if (attempts.verdict.type !== 'ok') return { ok: false, result: { type: 'answered', verdict: attempts.verdict, status, bytes: 0 } };
  const outcome = attempts.answer.outcome;
  try {
    return { ok: true, json: JSON.parse(outcome.type === 'response' ? outcome.body.toString('utf8') : '') };
  } catch {
    return { ok: false, result: notAnAnswer(status, 'not JSON') };
  }
}

/**
 * Every read is calculated afresh: PostHog's default ("blocking") answers an identical query
 * from its cache for hours, so a count or page read before new rows arrived would come back.
 */
export const FORCE_FRESH = 'force_blocking';

/** One HogQL query: its answer, or how the attempts ended. */
export async function askQuery(o: QueryCallOptions, query: string): Promise<Asked> {
  const asked = await askJson(o, 'POST', o.request.url, JSON.stringify({ query: { kind: 'HogQLQuery', query }, refresh: FORCE_FRESH, name: 'migrate export-source' }));
  if (!asked.ok) return asked;
  const answer = answerSchema.safeParse(asked.json);
  if (!answer.success) return { ok: false, result: notAnAnswer(200, 'no results') };
  return { ok: true, answer: answer.data };
}

/** A `SELECT count() ...` answered: the number, and the project's zone learned on the way. */
export async function askCount(o: QueryCallOptions, query: string, state: QueryState): Promise<{ ok: true; count: number } | { ok: false; result: DownloadResult }> {
  const asked = await askQuery(o, query);
  if (!asked.ok) return asked;
  const count = Number(asked.answer.results[0]?.[0]);
  if (!Number.isSafeInteger(count) || count < 0) return { ok: false, result: notAnAnswer(200, 'a count that is not a number') };
  state.timezone ??= asked.answer.timezone ?? 'UTC';
  return { ok: true, count };
}

export async function queryRange(o: QueryRangeOptions): Promise<QueryRangeResult> {
  const counted = await askCount(o, countEventsQuery(o.span), o.state);
  if (!counted.ok) return counted.result;
  const expected = counted.count;
  const file = await open(o.spoolPath, 'w');
  let rows = 0;
  let bytes = 0;
  try {
    let cursor: EventCursor | undefined;
    for (;;) {
      const limit = o.state.pageRows;
      const asked = await askQuery(o, eventPageQuery(o.span, cursor, limit));
      if (!asked.ok) return asked.result;
      const page = asked.answer.results;
      for (const row of page) {
        const line = eventLine(row, asked.answer.timezone ?? o.state.timezone ?? 'UTC');
        if (!line.ok) return notAnAnswer(200, line.message);
        await file.write(line.line);
        bytes += Buffer.byteLength(line.line);
        cursor = line.cursor;
      }
      rows += page.length;
      o.onRows(rows, expected);
      o.state.pageRows = rowCapOf(limit, asked.answer.hogql, page.length, rows < expected);
      // A page short of the cap is the last; one short of what was asked but at the cap is not.
      if (page.length === 0 || page.length < o.state.pageRows) break;
    }
  } finally {
    await file.close();
  }
  // A row that arrived behind the cursor while the pages were read is in no page: only a count
  // taken after the last page shows it.
  const recounted = await askCount(o, countEventsQuery(o.span), o.state);
  if (!recounted.ok) return recounted.result;
  return { type: 'read', bytes, rows, expected, recounted: recounted.count };
}
