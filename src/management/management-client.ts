/**
 * The management API client: the personal key as a Bearer token, only ever to the configured
 * API host; 429s waited out through the shared retry loop, for at least the time the server
 * states (clock injected); error answers turned into plain messages; responses validated by
 * zod. Built on the one HTTP client.
 */
import type { z } from 'zod';
import type { ManagementTarget } from '../config/resolve-project.js';
import { AuthError, RemoteError, UsageError } from '../errors.js';
import type { HttpClient, HttpOutcome } from '../http/http-client.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { sendWithRetry } from '../http/send-with-retry.js';
import { systemClock, type Clock } from '../util/clock.js';
import { formatZodIssues } from '../util/zod-issues.js';
import { describeApiError } from './api-error-message.js';
import { apiUrl, checkApiUrl, checkDownloadUrl } from './api-url.js';

/**
 * Throttling of the management API: a 429 is waited out (at least its Retry-After, or the
 * "Expected available in N seconds" of its detail) until five minutes of waiting are spent.
 * Only throttling is retried: these calls are interactive, so a server that is down or out
 * of reach is reported at once.
 */
export const MANAGEMENT_RETRY_POLICY: RetryPolicy = { initialDelayMs: 5000, maxDelayMs: 60_000, maxTotalWaitMs: 300_000 };

export interface ApiCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under the API host, starting with /api/; or an absolute page link from the server. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** What the call is about, for "not found" messages (e.g. `export 12`). */
  what?: string;
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  url: string;
}

export interface ManagementClientOptions {
  target: ManagementTarget;
  http: HttpClient;
  /** Waits between attempts and reads HTTP-date Retry-After values; tests inject one that never sleeps. Default: the system clock. */
  clock?: Clock;
  /** Backoff and budget for throttled calls. Default MANAGEMENT_RETRY_POLICY. */
  retryPolicy?: RetryPolicy;
  /** Called before each wait for a 429, e.g. to tell the user. */
  onThrottle?: (waitMs: number) => void;
  /** Per-request bound, in ms. Default 60000. */
  timeoutMs?: number;
}

export interface ManagementClient {
  readonly target: ManagementTarget;
  readonly clock: Clock;
  /** Sends a call with the key; answers any status as a reply (a 429 only once the throttle budget is spent). */
  send(call: ApiCall): Promise<ApiReply>;
  /** Sends a call and returns its validated JSON; error answers become thrown errors. */
  json<S extends z.ZodType>(call: ApiCall, schema: S): Promise<z.infer<S>>;
  /** Sends a call that answers without a body (204). */
  empty(call: ApiCall): Promise<void>;
  /** Fetches a storage link a content endpoint redirected to, without any credentials. */
  fetchUnauthenticated(location: string, from: string): Promise<ApiReply>;
  /** The thrown error for an error reply. */
  failure(reply: ApiReply, call: ApiCall): Error;
}

function outcomeError(outcome: Exclude<HttpOutcome, { type: 'response' }>, url: string): RemoteError {
  const origin = new URL(url).origin;
  if (outcome.type === 'timeout') return new RemoteError(`no answer from ${origin} within ${outcome.afterMs / 1000} s`);
  if (outcome.type === 'aborted') return new RemoteError(`request to ${origin} was cancelled`);
  return new RemoteError(`cannot reach ${origin} (${outcome.code})`, ['Check apiHost in the config and your network.']);
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

class HttpManagementClient implements ManagementClient {
  readonly target: ManagementTarget;
  readonly clock: Clock;

  constructor(private readonly options: ManagementClientOptions) {
    // Config resolution refuses this already; the client does too, so no caller can slip a
    // project key into the management API.
    if (options.target.personalApiKey.startsWith('phc_')) throw new UsageError('the management API takes a personal API key (phx_...), not a project key (phc_...)');
    this.target = options.target;
    this.clock = options.clock ?? systemClock;
  }

  /** The one gate every keyed request passes: the key goes to the API host's /api/ only. */
  private resolveUrl(call: ApiCall): string {
    const url = /^https?:\/\//.test(call.path) ? call.path : apiUrl(this.target.apiHost, call.path, call.query);
    const check = checkApiUrl(url, this.target.apiHost);
    if (!check.ok) throw new RemoteError(`refusing to send the personal API key to ${url}: ${check.reason}`);
    return check.url;
  }

  private async exchange(url: string, method: ApiCall['method'], headers: Record<string, string>, body?: string): Promise<ApiReply> {
    const attempts = await sendWithRetry(async () => ({ outcome: await this.options.http.send({ method, url, headers, body, timeoutMs: this.options.timeoutMs }) }), {
      policy: this.options.retryPolicy ?? MANAGEMENT_RETRY_POLICY,
      clock: this.clock,
      retryOn: ['throttled'],
      onRetry: (_verdict, delayMs) => this.options.onThrottle?.(delayMs),
    });
    const outcome: HttpOutcome = attempts.type === 'abandoned' ? { type: 'aborted' } : attempts.answer.outcome;
    if (outcome.type !== 'response') throw outcomeError(outcome, url);
    return { status: outcome.status, headers: outcome.headers, body: outcome.body, url };
  }

  async send(call: ApiCall): Promise<ApiReply> {
    const url = this.resolveUrl(call);
    const headers: Record<string, string> = { authorization: `Bearer ${this.target.personalApiKey}`, accept: 'application/json' };
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    return this.exchange(url, call.method, headers, body);
  }

  async json<S extends z.ZodType>(call: ApiCall, schema: S): Promise<z.infer<S>> {
    const reply = await this.send(call);
    if (reply.status < 200 || reply.status >= 300) throw this.failure(reply, call);
    let value: unknown;
    try {
      value = JSON.parse(reply.body.toString('utf8'));
    } catch {
      throw new RemoteError(`the API's answer to ${call.method} ${pathOf(reply.url)} is not JSON`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new RemoteError(`unexpected answer from ${call.method} ${pathOf(reply.url)}:\n  ${formatZodIssues(parsed.error).join('\n  ')}`);
    }
    return parsed.data;
  }

  async empty(call: ApiCall): Promise<void> {
    const reply = await this.send(call);
    if (reply.status < 200 || reply.status >= 300) throw this.failure(reply, call);
  }

  async fetchUnauthenticated(location: string, from: string): Promise<ApiReply> {
    const check = checkDownloadUrl(location, from);
    if (!check.ok) throw new RemoteError(`not following the download link: ${check.reason}`);
    return this.exchange(check.url, 'GET', {});
  }

  failure(reply: ApiReply, call: ApiCall): Error {
    const description = describeApiError({
      status: reply.status,
      body: reply.body.toString('utf8'),
      method: call.method,
      path: pathOf(reply.url),
      what: call.what,
      projectName: this.target.name,
      projectId: this.target.projectId,
    });
    return description.kind === 'auth' ? new AuthError(description.message, description.hints) : new RemoteError(description.message, description.hints);
  }
}

export function createManagementClient(options: ManagementClientOptions): ManagementClient {
  return new HttpManagementClient(options);
}
