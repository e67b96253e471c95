/**
 * Faults the sandbox can inject into capture requests, so users can rehearse (and tests can
 * prove) what happens when the real service misbehaves. Rates are shares of requests in [0, 1]
 * and add up: one draw decides which fault, if any, a request gets.
 */
export interface CaptureFaults {
  /** Share of requests answered 500. */
  error500?: number;
  /** Share answered 503 (PostHog's retryable sink error). */
  error503?: number;
  /** Share answered 429 without Retry-After (as PostHog does today). */
  error429?: number;
  /** Share answered 429 with `Retry-After: retryAfterSeconds`. */
  error429RetryAfter?: number;
  /** Retry-After value, in seconds. Default 1. */
  retryAfterSeconds?: number;
  /** Share of connections dropped before anything is stored. */
  drop?: number;
  /** Share of requests stored, then the connection dropped (the answer is lost). */
  loseAnswer?: number;
  /** Share of requests answered late (independent of the faults above). */
  slow?: number;
  /** Delay of a slow answer, in ms. Default 2000. */
  slowMs?: number;
  /**
   * A token of no project: refused with 401 (the default, friendlier for rehearsals), or
   * answered 200 and its events dropped, as PostHog's capture may do (it does not always know
   * the tokens; ingestion drops the events later).
   */
  unknownTokens?: 'refuse' | 'accept-and-drop';
  /** Answer every valid request 200 and store nothing, as PostHog does over a billing limit. */
  overQuota?: boolean;
  /** Share of accepted events lost after the 200 (a pipeline loss `migrate verify` should find). */
  loseAfterAccept?: number;
  /** Most events accepted in any one second; past it, 429 without Retry-After (see rate-window.ts). */
  rateLimitPerSec?: number;
}

export type Fault = { type: 'status'; status: 500 | 503 | 429; retryAfterSeconds?: number } | { type: 'drop' } | { type: 'lose-answer' };

/** The fault for one request, from one draw of `random` in [0, 1). */
export function pickFault(faults: CaptureFaults, random: () => number): Fault | undefined {
  const draw = random();
  const buckets: Array<[number | undefined, Fault]> = [
    [faults.error500, { type: 'status', status: 500 }],
    [faults.error503, { type: 'status', status: 503 }],
    [faults.error429, { type: 'status', status: 429 }],
    [faults.error429RetryAfter, { type: 'status', status: 429, retryAfterSeconds: faults.retryAfterSeconds ?? 1 }],
    [faults.drop, { type: 'drop' }],
    [faults.loseAnswer, { type: 'lose-answer' }],
  ];
  let edge = 0;
  for (const [rate, fault] of buckets) {
    edge += rate ?? 0;
    if (draw < edge) return fault;
  }
  return undefined;
}

/** Delay for this request, in ms (0 for most). */
export function slowDelayMs(faults: CaptureFaults, random: () => number): number {
  return faults.slow !== undefined && faults.slow > 0 && random() < faults.slow ? (faults.slowMs ?? 2000) : 0;
}

const STATUS_ERRORS: Record<number, { code: string; error: string }> = {
  500: { code: 'internal_error', error: 'internal server error' },
  503: { code: 'retryable_sink_error', error: 'transient error, please retry' },
  429: { code: 'rate_limited', error: 'rate limited' },
};

export function faultBody(status: number): { status: number; code: string; error: string } {
  return { status, ...STATUS_ERRORS[status]! };
}

/** A one-line description for `migrate sandbox`'s banner. */
export function describeFaults(faults: CaptureFaults): string {
  const parts: string[] = [];
  const pct = (rate: number | undefined): string => `${Math.round((rate ?? 0) * 1000) / 10}%`;
  if (faults.error500) parts.push(`${pct(faults.error500)} HTTP 500`);
  if (faults.error503) parts.push(`${pct(faults.error503)} HTTP 503`);
  if (faults.error429) parts.push(`${pct(faults.error429)} HTTP 429`);
  if (faults.error429RetryAfter) parts.push(`${pct(faults.error429RetryAfter)} HTTP 429 with Retry-After ${faults.retryAfterSeconds ?? 1} s`);
  if (faults.drop) parts.push(`${pct(faults.drop)} dropped connections`);
  if (faults.loseAnswer) parts.push(`${pct(faults.loseAnswer)} stored but answer lost`);
  if (faults.slow) parts.push(`${pct(faults.slow)} answered after ${faults.slowMs ?? 2000} ms`);
  if (faults.overQuota) parts.push('over quota (200, nothing stored)');
  if (faults.rateLimitPerSec) parts.push(`at most ${faults.rateLimitPerSec} events a second (429 past it)`);
  if (faults.loseAfterAccept) parts.push(`${pct(faults.loseAfterAccept)} of accepted events lost after the 200`);
  const tokens = faults.unknownTokens === 'accept-and-drop' ? 'answered 200 and dropped' : 'refused with 401';
  return `${parts.length === 0 ? 'none' : parts.join(', ')}; unknown tokens ${tokens}`;
}
