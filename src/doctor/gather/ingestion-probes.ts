/**
 * The two requests doctor sends to the ingestion host, neither of which stores anything: a
 * `/batch/` with an empty batch (PostHog answers it 400), and one flags request with the project
 * key (PostHog's flags service answers 401 for a key that is no project's). Both go through the
 * one HTTP client and the one retry loop.
 */
import { InterruptedError } from '../../errors.js';
import type { HttpClient, HttpRequest } from '../../http/http-client.js';
import type { RetryPolicy } from '../../http/retry-policy.js';
import { sendWithRetry } from '../../http/send-with-retry.js';
import type { Clock } from '../../util/clock.js';
import { interruptedBy } from '../../util/interrupted-by.js';
import { VERSION } from '../../version.js';
import type { Probe } from '../doctor-facts.js';

/** The distinct id of doctor's one flags request (it creates no person: flags store nothing). */
export const DOCTOR_DISTINCT_ID = 'migrate-doctor';
const BODY_START_CHARS = 200;

export interface ProbeContext {
  http: HttpClient;
  /** Ingestion base URL, no trailing slash. */
  host: string;
  apiKey: string;
  policy: RetryPolicy;
  clock: Clock;
  signal: AbortSignal;
  timeoutMs: number;
}

export interface ProbeResult {
  probe: Probe;
  /** The answer's Date header, and the local clock when the answer arrived. */
  date?: string;
  receivedMs: number;
}

async function probe(ctx: ProbeContext, path: string, body: unknown): Promise<ProbeResult> {
  const request: HttpRequest = {
    method: 'POST',
    url: `${ctx.host}${path}`,
    headers: { 'content-type': 'application/json', 'user-agent': `migrate/${VERSION}` },
    body: JSON.stringify(body),
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
  };
  const attempts = await sendWithRetry(async () => ({ outcome: await ctx.http.send(request) }), { policy: ctx.policy, clock: ctx.clock, signal: ctx.signal });
  const receivedMs = ctx.clock.now();
  if (attempts.type === 'abandoned') throw new InterruptedError(`interrupted by ${interruptedBy(ctx.signal)} during the preflight; nothing was sent`);
  const outcome = attempts.answer.outcome;
  if (outcome.type !== 'response') {
    const reason = attempts.type === 'gave-up' ? `${attempts.verdict.reason}; ${attempts.reason}` : outcome.type;
    return { probe: { type: 'unreachable', reason }, receivedMs };
  }
  const text = outcome.body.toString('utf8').replace(/\s+/g, ' ').trim();
  const answer = {
    status: outcome.status,
    contentType: outcome.headers['content-type'] ?? '',
    bodyStart: text.slice(0, BODY_START_CHARS),
    ...(outcome.headers.location !== undefined ? { location: outcome.headers.location } : {}),
  };
  return { probe: { type: 'answer', answer }, date: outcome.headers.date, receivedMs };
}

/** `POST {host}/batch/` with no event: stores nothing anywhere. */
export function probeEmptyBatch(ctx: ProbeContext): Promise<ProbeResult> {
  return probe(ctx, '/batch/', { api_key: ctx.apiKey, historical_migration: true, batch: [] });
}

/** `POST {host}/flags/?v=2` with the project key and a fixed distinct id. */
export function probeFlags(ctx: ProbeContext): Promise<ProbeResult> {
  return probe(ctx, '/flags/?v=2', { token: ctx.apiKey, distinct_id: DOCTOR_DISTINCT_ID });
}
