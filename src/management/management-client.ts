/**
 * The management API client: the personal key as a Bearer token, only ever to the configured
 * API host; 429s waited out through the shared retry loop, for at least the time the server
 * states (clock injected); error answers turned into plain messages naming the host that
 * answered; responses validated by zod. Built on the one HTTP client.
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
import { apiUrl, checkApiUrl, checkDownloadUrl, hostOf, isAbsoluteHttpUrl } from './api-url.js';

/**
 * Throttling of the management API: a 429 is waited out (at least its Retry-After, or the
 * "Expected available in N seconds" of its detail) until five minutes of waiting are spent.
 * Only throttling is retried: these calls are interactive, so a server that is down or out
 * of reach is reported at once.
 */
export const MANAGEMENT_RETRY_POLICY: RetryPolicy = { initialDelayMs: 5000, maxDelayMs: 60_000, maxTotalWaitMs: 300_000 };

/** Per-request bound when a call does not set its own, in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface ApiCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under the API host, starting with /api/; or an absolute page link from the server. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** What the call is about, for "not found" messages (e.g. `export 12`). */
  what?: string;
  /** This request's bound, in ms (a call the server answers slowly, like creating an export). Default: the client's. */
  timeoutMs?: number;
  /** Extra hint lines for an error answer, by status (e.g. who can see an export, for a 404). */
  hints?: Partial<Record<number, readonly string[]>>;
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  url: string;
}

/** A request that got no HTTP answer: timed out, cancelled or unreachable. */
export type ApiNoAnswer = Exclude<HttpOutcome, { type: 'response' }> & { url: string };

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
  /** As `send`, but a request that got no answer (a timeout) comes back as a value instead of an error. */
  trySend(call: ApiCall): Promise<ApiReply | ApiNoAnswer>;
  /** Sends a call and returns its validated JSON; error answers become thrown errors. */
  json<S extends z.ZodType>(call: ApiCall, schema: S): Promise<z.infer<S>>;
  /** Validates a reply already received as JSON of `schema`; an error answer becomes a thrown error. */
  parse<S extends z.ZodType>(reply: ApiReply, call: ApiCall, schema: S): z.infer<S>;
  /** Sends a call that answers without a body (204). */
  empty(call: ApiCall): Promise<void>;
  /** Fetches a storage link a content endpoint redirected to, without any credentials. */
  fetchUnauthenticated(location: string, from: string): Promise<ApiReply>;
  /** The thrown error for an error reply. */
  failure(reply: ApiReply, call: ApiCall): Error;
}

/** The error for a request that got no answer, naming the host it went to. */
export function noAnswerError(outcome: ApiNoAnswer): RemoteError {
  const origin = new URL(outcome.url).origin;
  if (outcome.type === 'timeout') return new RemoteError(`no answer from ${origin} within ${outcome.afterMs / 1000} s`);
  if (outcome.type === 'aborted') return new RemoteError(`request to ${origin} was cancelled`);
  return new RemoteError(`cannot reach ${origin} (${outcome.code})`, ['Check apiHost in the config and your network.']);
}

export function isNoAnswer(reply: ApiReply | ApiNoAnswer): reply is ApiNoAnswer {
  return 'type' in reply;
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
    const url = isAbsoluteHttpUrl(call.path) ? call.path : apiUrl(this.target.apiHost, call.path, call.query);
    const check = checkApiUrl(url, this.target.apiHost);
    if (!check.ok) throw new RemoteError(`refusing to send the personal API key to ${url}: ${check.reason}`);
    return check.url;
  }

  private async exchange(url: string, method: ApiCall['method'], headers: Record<string, string>, body?: string, timeoutMs?: number): Promise<ApiReply | ApiNoAnswer> {
    const attempts = await sendWithRetry(
      async () => ({ outcome: await this.options.http.send({ method, url, headers, body, timeoutMs: timeoutMs ?? this.options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS }) }),
      {
        policy: this.options.retryPolicy ?? MANAGEMENT_RETRY_POLICY,
        clock: this.clock,
        retryOn: ['throttled'],
        onRetry: (_verdict, delayMs) => this.options.onThrottle?.(delayMs),
      },
    );
    const outcome: HttpOutcome = attempts.type === 'abandoned' ? { type: 'aborted' } : attempts.answer.outcome;
    if (outcome.type !== 'response') return { ...outcome, url };
    return { status: outcome.status, headers: outcome.headers, body: outcome.body, url };
  }

  async trySend(call: ApiCall): Promise<ApiReply | ApiNoAnswer> {
    const url = this.resolveUrl(call);
    const headers: Record<string, string> = { authorization: `Bearer ${this.target.personalApiKey}`, accept: 'application/json' };
    let body: string | undefined;
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    return this.exchange(url, call.method, headers, body, call.timeoutMs);
  }

  async send(call: ApiCall): Promise<ApiReply> {
    const reply = await this.trySend(call);
    if (isNoAnswer(reply)) throw noAnswerError(reply);
    return reply;
  }

  parse<S extends z.ZodType>(reply: ApiReply, call: ApiCall, schema: S): z.infer<S> {
    if (reply.status < 200 || reply.status >= 300) throw this.failure(reply, call);
    const from = `${hostOf(reply.url)}'s answer to ${call.method} ${pathOf(reply.url)}`;
    let value: unknown;
    try {
      value = JSON.parse(reply.body.toString('utf8'));
    } catch {
      throw new RemoteError(`${from} is not JSON`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new RemoteError(`unexpected answer: ${from}:\n  ${formatZodIssues(parsed.error).join('\n  ')}`);
    return parsed.data;
  }

  async json<S extends z.ZodType>(call: ApiCall, schema: S): Promise<z.infer<S>> {
    return this.parse(await this.send(call), call, schema);
  }

  async empty(call: ApiCall): Promise<void> {
    const reply = await this.send(call);
    if (reply.status < 200 || reply.status >= 300) throw this.failure(reply, call);
  }

  async fetchUnauthenticated(location: string, from: string): Promise<ApiReply> {
    const check = checkDownloadUrl(location, from);
    if (!check.ok) throw new RemoteError(`not following the download link that ${hostOf(from)} gave: ${check.reason}`);
    const reply = await this.exchange(check.url, 'GET', {});
    if (isNoAnswer(reply)) throw noAnswerError(reply);
    return reply;
  }

  failure(reply: ApiReply, call: ApiCall): Error {
    const description = describeApiError({
      status: reply.status,
      body: reply.body.toString('utf8'),
      method: call.method,
      path: pathOf(reply.url),
      host: hostOf(reply.url),
      location: reply.headers.location,
      what: call.what,
      projectName: this.target.name,
      projectId: this.target.projectId,
    });
    const hints = [...description.hints, ...(call.hints?.[reply.status] ?? [])];
    return description.kind === 'auth' ? new AuthError(description.message, hints) : new RemoteError(description.message, hints);
  }
}

export function createManagementClient(options: ManagementClientOptions): ManagementClient {
  return new HttpManagementClient(options);
}
