/**
 * Ingestion endpoints (/batch/, /e/, /capture/, /i/v0/e/): read the body within its limits,
 * unpack it, validate all or nothing, resolve the project by token, store, answer
 * 200 {"status":"Ok"}. Faults, when configured, are injected before anything is stored (or,
 * for a lost answer, after). Errors keep one JSON shape (`{status, code, error}`), where some
 * PostHog versions answer plain text.
 */
import { json, type Route, type RouteHandler, type SandboxRequest, type SandboxResponse } from '../router.js';
import { projectIdForToken } from '../sandbox-projects.js';
import type { SandboxStore } from '../sandbox-store.js';
import { CAPTURE_MAX_DECOMPRESSED_BYTES, CAPTURE_MAX_RECEIVED_BYTES } from '../../posthog/limits.js';
import { readCaptureBody } from './capture-body.js';
import { faultBody, pickFault, slowDelayMs, type CaptureFaults } from './capture-faults.js';
import { checkCapture, parseCapture, type CheckedCapture } from './capture-parse.js';
import { compressionOf, extractPayload } from './capture-payload.js';
import { captureProblem, isProblem, problemResponse, type CaptureProblem } from './capture-problem.js';
import { CaptureSink, type CaptureStats } from './capture-sink.js';
import { debugRoutes } from './debug-routes.js';
import { RateWindow } from './rate-window.js';
import { uuidV7 } from './uuid-v7.js';

export interface CaptureRequestInfo {
  path: string;
  status: number | 'dropped';
}

export interface CaptureOptions {
  faults?: CaptureFaults;
  /** Body limit once decompressed, in bytes. Default 100 MiB (PostHog's). */
  maxBodyBytes?: number;
  /** Body limit as received, in bytes. Default 20 MiB (PostHog's). */
  maxReceivedBytes?: number;
  /** Limit on one event (capture's Kafka message). Default 1,000,000 bytes. */
  maxEventBytes?: number;
  /** Validate and count, store nothing (benchmarks). Default false. */
  countOnly?: boolean;
  /** Draws for faults and losses, in [0, 1). Default Math.random; tests pass a seeded one. */
  random?: () => number;
  /** Waits for slow answers. Default a real timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Told about every answered (or dropped) capture request, before the answer is sent. */
  onRequest?: (info: CaptureRequestInfo) => void;
}

export interface CaptureControl {
  stats: CaptureStats;
}

const DROP: SandboxResponse = { status: 0, drop: true };
const CAPTURE_PATHS = [/^\/batch\/?$/, /^\/e\/?$/, /^\/capture\/?$/, /^\/i\/v0\/e\/?$/];
const OK = (): SandboxResponse => json(200, { status: 'Ok' });

function gzipHinted(req: SandboxRequest): boolean {
  return compressionOf(req.url.searchParams.get('compression')) === 'gzip' || /\bgzip\b/i.test(String(req.headers['content-encoding'] ?? ''));
}

function querySentAtMs(url: URL): number | undefined {
  const value = Number(url.searchParams.get('_') ?? url.searchParams.get('sent_at') ?? NaN);
  // Only milliseconds are read (seconds from old SDKs would land in 1970), as PostHog does.
  return Number.isFinite(value) && new Date(value).getUTCFullYear() > 2020 ? value : undefined;
}

function faultResponse(status: 500 | 503 | 429, retryAfterSeconds: number | undefined): SandboxResponse {
  return json(status, faultBody(status), retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });
}

/** The body was not read to its end: the connection cannot carry another request. */
const closing = (problem: CaptureProblem): SandboxResponse => ({ ...problemResponse(problem), headers: { 'content-type': 'application/json', connection: 'close' } });

const eventTooBig = (): CaptureProblem => captureProblem(413, 'event_too_big', 'maximum event size exceeded');

interface Settings {
  faults: CaptureFaults;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** A fault's answer, or undefined when the request goes on. */
async function injectedFault(settings: Settings): Promise<SandboxResponse | 'lose-answer' | undefined> {
  const fault = pickFault(settings.faults, settings.random);
  const delayMs = slowDelayMs(settings.faults, settings.random);
  if (delayMs > 0) await settings.sleep(delayMs);
  if (fault?.type === 'drop') return DROP;
  if (fault?.type === 'status') return faultResponse(fault.status, fault.retryAfterSeconds);
  return fault?.type;
}

function captureHandler(store: SandboxStore, options: CaptureOptions, sink: CaptureSink, rates: RateWindow): RouteHandler {
  const settings: Settings = {
    faults: options.faults ?? {},
    random: options.random ?? Math.random,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
  };
  const limits = { maxReceivedBytes: options.maxReceivedBytes ?? CAPTURE_MAX_RECEIVED_BYTES, maxBodyBytes: options.maxBodyBytes ?? CAPTURE_MAX_DECOMPRESSED_BYTES };
  const maxEventBytes = options.maxEventBytes;
  return async (req, ctx) => {
    sink.stats.requests++;
    const body = await readCaptureBody(req.stream, gzipHinted(req), limits);
    const fault = options.faults ? await injectedFault(settings) : undefined;
    if (fault !== undefined && fault !== 'lose-answer') return fault;
    if (isProblem(body)) return closing(body);
    const payload = extractPayload({
      body: body.bytes,
      inflated: body.inflated,
      query: req.url.searchParams,
      path: req.url.pathname,
      maxBodyBytes: limits.maxBodyBytes,
      contentType: req.headers['content-type'],
      contentEncoding: req.headers['content-encoding'],
      latin1Text: sink.countOnly,
    });
    if (isProblem(payload)) return problemResponse(payload);
    const nowMs = ctx.now().getTime();
    // Count-only mode runs the same checks but builds no stored form (it would be thrown away).
    const capture = sink.countOnly ? checkCapture(payload, { maxEventBytes }) : parseCapture(payload, { nowMs, querySentAtMs: querySentAtMs(req.url), newUuid: () => uuidV7(nowMs), maxEventBytes });
    if (isProblem(capture)) return problemResponse(capture);
    // Over the rate limit: refused before anything is stored, as capture refuses before producing.
    if (!rates.admit(capture.eventCount, nowMs)) return faultResponse(429, undefined);
    const response = deliver(store, sink, settings.faults, capture, { endpoint: req.url.pathname, receivedAt: new Date(nowMs).toISOString(), clientIp: req.remoteAddress });
    return fault === 'lose-answer' && response.status === 200 ? DROP : response;
  };
}

/** Stores (or drops) what passed capture's checks and says how capture answers. */
function deliver(store: SandboxStore, sink: CaptureSink, faults: CaptureFaults, capture: CheckedCapture, meta: Parameters<CaptureSink['accept']>[2]): SandboxResponse {
  const teamId = projectIdForToken(store, capture.token);
  const tooBig = capture.tooBigAt !== undefined;
  if (teamId === undefined) {
    if (faults.unknownTokens !== 'accept-and-drop') return problemResponse(captureProblem(401, 'invalid_token', 'API key is not valid: no project has this token'));
    sink.drop('unknownToken', capture);
    return tooBig ? problemResponse(eventTooBig()) : OK();
  }
  if (faults.overQuota) {
    sink.drop('overQuota', capture);
    return OK();
  }
  sink.accept(teamId, capture, meta);
  return tooBig ? problemResponse(eventTooBig()) : OK();
}

/** POST /_sandbox/rate-limit?events_per_sec=n: changes the capture rate limit (0 for none) while the sandbox runs. */
function rateLimitRoute(rates: RateWindow): Route {
  return {
    method: 'POST',
    path: /^\/_sandbox\/rate-limit\/?$/,
    handler: (req) => {
      const value = Number(req.url.searchParams.get('events_per_sec'));
      if (!Number.isInteger(value) || value < 0) return json(400, { error: 'events_per_sec must be a whole number, 0 for no limit' });
      rates.setLimit(value);
      return json(200, { eventsPerSec: value });
    },
  };
}

/** Wraps a handler to count answers and tell the observer. */
function observed(handler: RouteHandler, sink: CaptureSink, onRequest: CaptureOptions['onRequest']): RouteHandler {
  return async (req, ctx) => {
    const response = await handler(req, ctx);
    const status = response.drop ? 'dropped' : response.status;
    sink.answered(status);
    onRequest?.({ path: req.url.pathname, status });
    return response;
  };
}

export function createCaptureRoutes(store: SandboxStore, options: CaptureOptions = {}): { routes: Route[]; control: CaptureControl } {
  const random = options.random ?? Math.random;
  const loseShare = options.faults?.loseAfterAccept ?? 0;
  const sink = new CaptureSink(store, options.countOnly === true, { share: loseShare, random });
  const rates = new RateWindow(options.faults?.rateLimitPerSec ?? 0);
  const handler = observed(captureHandler(store, { ...options, random }, sink, rates), sink, options.onRequest);
  const routes: Route[] = CAPTURE_PATHS.map((path) => ({ method: 'POST', path, handler }));
  routes.push({ method: 'GET', path: /^\/_sandbox\/stats\/?$/, handler: () => json(200, sink.stats) }, rateLimitRoute(rates), ...debugRoutes);
  return { routes, control: { stats: sink.stats } };
}
