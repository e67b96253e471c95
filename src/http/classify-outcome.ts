/**
 * The one place that decides what an HTTP outcome means. Every status and network failure maps
 * to a tagged value; the retry loop and its callers act on the tag, never on raw statuses.
 */
import type { HttpOutcome } from './http-outcome.js';
import { retryAfterMs, serverMessage } from './server-answer.js';

/** Why a transient failure happened; a caller may retry only some (see sendWithRetry). */
export type RetryCause = 'throttled' | 'unavailable' | 'network' | 'timeout';

export type RetryVerdict = { type: 'retry'; cause: RetryCause; afterMs: number | undefined; reason: string };

export type Verdict =
  | { type: 'ok'; status: number }
  | RetryVerdict
  | { type: 'too-large'; reason: string }
  /** PostHog's query API: ClickHouse refused the query on its time estimate (512) or stopped it at its limit (504); a smaller query may pass. */
  | { type: 'too-slow'; status: number; message: string }
  | { type: 'rejected'; status: number; message: string }
  | { type: 'fatal'; kind: 'auth' | 'endpoint' | 'aborted'; status?: number; message: string };

/** What answered: an endpoint whose statuses mean what HTTP says, or PostHog's query API, where 512 and 504 say the query was too slow. */
export type Endpoint = 'plain' | 'query';

function classifyStatus(status: number, headers: Record<string, string>, body: Buffer, nowMs: number, endpoint: Endpoint): Verdict {
  if (status >= 200 && status < 300) return { type: 'ok', status };
  if (endpoint === 'query' && (status === 512 || status === 504)) return { type: 'too-slow', status, message: serverMessage(body) };
  if (status === 408 || status === 429 || (status >= 500 && status < 600)) {
    const cause = status === 429 ? 'throttled' : 'unavailable';
    return { type: 'retry', cause, afterMs: retryAfterMs(headers, body.toString('utf8'), nowMs), reason: `HTTP ${status}: ${serverMessage(body)}` };
  }
  if (status === 413) return { type: 'too-large', reason: `HTTP 413: ${serverMessage(body)}` };
  if (status === 400) return { type: 'rejected', status, message: serverMessage(body) };
  if (status === 401 || status === 403) return { type: 'fatal', kind: 'auth', status, message: serverMessage(body) };
  if (status >= 300 && status < 400) {
    const to = headers.location ? ` to ${headers.location}` : '';
    return { type: 'fatal', kind: 'endpoint', status, message: `the server redirected${to}; redirects are not followed, so set the host to the final address` };
  }
  if (status === 404 || status === 405) {
    return { type: 'fatal', kind: 'endpoint', status, message: `no ingestion endpoint here (HTTP ${status}); check the host (e.g. https://us.i.posthog.com)` };
  }
  return { type: 'fatal', kind: 'endpoint', status, message: `unexpected HTTP ${status}: ${serverMessage(body)}` };
}

export function classifyOutcome(outcome: HttpOutcome, nowMs: number, endpoint: Endpoint = 'plain'): Verdict {
  switch (outcome.type) {
    case 'response':
      return classifyStatus(outcome.status, outcome.headers, outcome.body, nowMs, endpoint);
    case 'network-error':
      return { type: 'retry', cause: 'network', afterMs: undefined, reason: `network error ${outcome.code}: ${outcome.message}` };
    case 'timeout':
      return { type: 'retry', cause: 'timeout', afterMs: undefined, reason: `no answer within ${outcome.afterMs} ms` };
    case 'aborted':
      return { type: 'fatal', kind: 'aborted', message: 'the request was abandoned' };
  }
}
