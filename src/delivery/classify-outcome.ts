/**
 * The one place that decides what an HTTP outcome means for a chunk. Every status and network
 * failure maps to a tagged value; the delivery loop acts on the tag and never on raw statuses.
 */
import type { HttpOutcome } from '../http/http-outcome.js';

export type Verdict =
  | { type: 'ok'; status: number }
  | { type: 'retry'; afterMs: number | undefined; reason: string }
  | { type: 'too-large'; reason: string }
  | { type: 'rejected'; status: number; message: string }
  | { type: 'fatal'; kind: 'auth' | 'endpoint' | 'aborted'; status?: number; message: string };

const MAX_MESSAGE_CHARS = 500;

/** The server's explanation from an error body: JSON `error`/`detail`/`message`, else the text. */
export function serverMessage(body: Buffer): string {
  const text = body.toString('utf8').trim();
  if (text === '') return '(no message)';
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    for (const field of ['error', 'detail', 'message']) {
      const value = parsed?.[field];
      if (typeof value === 'string' && value !== '') {
        const code = typeof parsed.code === 'string' ? ` (${parsed.code})` : '';
        return `${value}${code}`.slice(0, MAX_MESSAGE_CHARS);
      }
    }
  } catch {
    // Older servers answer in plain text.
  }
  return text.replace(/\s+/g, ' ').slice(0, MAX_MESSAGE_CHARS);
}

/** Retry-After as delta-seconds or an HTTP date, in ms from `nowMs`; undefined when absent or bad. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

function classifyStatus(status: number, headers: Record<string, string>, body: Buffer, nowMs: number): Verdict {
  if (status >= 200 && status < 300) return { type: 'ok', status };
  if (status === 408 || status === 429 || (status >= 500 && status < 600)) {
    return { type: 'retry', afterMs: parseRetryAfter(headers['retry-after'], nowMs), reason: `HTTP ${status}: ${serverMessage(body)}` };
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

export function classifyOutcome(outcome: HttpOutcome, nowMs: number): Verdict {
  switch (outcome.type) {
    case 'response':
      return classifyStatus(outcome.status, outcome.headers, outcome.body, nowMs);
    case 'network-error':
      return { type: 'retry', afterMs: undefined, reason: `network error ${outcome.code}: ${outcome.message}` };
    case 'timeout':
      return { type: 'retry', afterMs: undefined, reason: `no answer within ${outcome.afterMs} ms` };
    case 'aborted':
      return { type: 'fatal', kind: 'aborted', message: 'the request was abandoned' };
  }
}
