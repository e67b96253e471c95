/**
 * Downloads one range's answer into a spool file next to the staging file, through the one
 * retry loop: each attempt waits for the request limits, streams the body to disk as it
 * arrives (never whole in memory) and counts as done only when the body is complete. A
 * connection dropped mid-body, silent for longer than the idle time, or a whole answer that is
 * not an export (an HTML page or an error object with a 200, a body cut in the middle of a
 * line) is a network failure like any other: the attempt is retried from the start, and nothing of the range has been
 * staged yet, since staging begins once the download is whole.
 */
import { open } from 'node:fs/promises';
import type { RetryVerdict, Verdict } from '../http/classify-outcome.js';
import type { HttpClient, HttpOutcome } from '../http/http-client.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { sendWithRetry } from '../http/send-with-retry.js';
import type { Clock } from '../util/clock.js';
import { AnswerSampler, type AnswerSample } from './answer-sample.js';
import type { RangeRequest } from './api-source.js';
import { windowHooks, type RequestWindow } from './request-window.js';

/** What every request of a source API range needs: the endpoint, the one retry loop's settings, the request limits. */
export interface RangeCallOptions {
  http: HttpClient;
  /** The endpoint and its headers (the credentials). */
  request: RangeRequest;
  policy: RetryPolicy;
  clock: Clock;
  signal: AbortSignal;
  /** The request limits and the pace. */
  window: RequestWindow;
  /** A request must wait this long for the limits. */
  onWait(waitMs: number): void;
  /** A request is about to be sent. */
  onRequest(): void;
  onRetry(reason: string, delayMs: number): void;
  /** A transient failure that ends the attempts (the caller splits the range). */
  splitsOn(status: number | undefined): boolean;
}

export interface DownloadOptions extends RangeCallOptions {
  spoolPath: string;
  /** Longest silence of the server, before its answer or within its body, in ms. */
  idleTimeoutMs: number;
  /** Bytes of the answer received so far. */
  onBytes(bytes: number): void;
  /** Why a whole 2xx answer is not an export after all (see answer-checks.ts). */
  answerProblem(sample: AnswerSample): string | undefined;
}

export type DownloadResult =
  | { type: 'answered'; verdict: Verdict; status: number | undefined; bytes: number }
  | { type: 'gave-up'; verdict: RetryVerdict; status: number | undefined; reason: string }
  | { type: 'abandoned' };

interface Attempt {
  outcome: HttpOutcome;
  bytes: number;
}

function statusOf(outcome: HttpOutcome): number | undefined {
  return outcome.type === 'response' ? outcome.status : undefined;
}

async function attempt(o: DownloadOptions): Promise<Attempt> {
  o.onRequest();
  const answer = await o.http.stream({ url: o.request.url, headers: o.request.headers, idleTimeoutMs: o.idleTimeoutMs, signal: o.signal });
  if (answer.type === 'settled') return { outcome: answer.outcome, bytes: 0 };
  const file = await open(o.spoolPath, 'w');
  const sampler = new AnswerSampler();
  let received = 0;
  let end;
  try {
    end = await answer.consume(async (chunk) => {
      await file.write(chunk);
      await sampler.add(chunk);
      received += chunk.length;
      o.onBytes(received);
    });
  } finally {
    await file.close();
  }
  if (end.type !== 'complete') return { outcome: end, bytes: 0 };
  // A 200 is not yet an export: a proxy's page, an error object or a cut body is a failed attempt like a dropped connection.
  const problem = o.answerProblem(await sampler.finish());
  if (problem !== undefined) return { outcome: { type: 'network-error', code: 'NOT_AN_EXPORT', message: problem }, bytes: 0 };
  return { outcome: { type: 'response', status: answer.status, headers: answer.headers, body: Buffer.alloc(0) }, bytes: end.bytes };
}

export async function downloadRange(o: DownloadOptions): Promise<DownloadResult> {
  const attempts = await sendWithRetry(() => attempt(o), {
    policy: o.policy,
    clock: o.clock,
    signal: o.signal,
    ...windowHooks<Attempt>(o.window, o.clock, o.signal, o.onWait),
    onRetry: (verdict, delayMs) => o.onRetry(verdict.reason, delayMs),
    answerAsIs: (answer) => o.splitsOn(statusOf(answer.outcome)),
  });
  if (attempts.type === 'abandoned') return { type: 'abandoned' };
  const status = statusOf(attempts.answer.outcome);
  if (attempts.type === 'gave-up') return { type: 'gave-up', verdict: attempts.verdict, status, reason: attempts.reason };
  return { type: 'answered', verdict: attempts.verdict, status, bytes: attempts.answer.bytes };
}
