/**
 * Ingestion endpoints (/batch/, /e/, /capture/, /i/v0/e/): decode, validate all or nothing,
 * resolve the project by token, store, answer 200 {"status":"Ok"}. Faults, when configured,
 * are injected before anything is stored (or, for a lost answer, after).
 */
import { json, type Route, type RouteHandler, type SandboxRequest, type SandboxResponse } from '../router.js';
import { projectIdForToken } from '../sandbox-projects.js';
import type { SandboxStore } from '../sandbox-store.js';
import { DEFAULT_MAX_BODY_BYTES, decodeBody } from './capture-body.js';
import { faultBody, pickFault, slowDelayMs, type CaptureFaults } from './capture-faults.js';
import { checkCapture, parseCapture } from './capture-parse.js';
import { captureProblem, isProblem, problemResponse } from './capture-problem.js';
import { CaptureSink, type CaptureStats } from './capture-sink.js';
import { uuidV7 } from './uuid-v7.js';

export interface CaptureRequestInfo {
  path: string;
  status: number | 'dropped';
}

export interface CaptureOptions {
  faults?: CaptureFaults;
  /** Decompressed body limit, in bytes. Default 20 MiB (PostHog's /batch/ limit). */
  maxBodyBytes?: number;
  /** Validate and count, store nothing (benchmarks). Default false. */
  countOnly?: boolean;
  /** Draws for faults, in [0, 1). Default Math.random; tests pass a seeded one. */
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

function gzipHinted(req: SandboxRequest): boolean {
  const compression = req.url.searchParams.get('compression');
  return compression === 'gzip' || compression === 'gzip-js' || /\bgzip\b/i.test(String(req.headers['content-encoding'] ?? ''));
}

function querySentAtMs(url: URL): number | undefined {
  const value = Number(url.searchParams.get('_') ?? url.searchParams.get('sent_at') ?? NaN);
  // Only milliseconds are read (seconds from old SDKs would land in 1970), as PostHog does.
  return Number.isFinite(value) && new Date(value).getUTCFullYear() > 2020 ? value : undefined;
}

function faultResponse(status: 500 | 503 | 429, retryAfterSeconds: number | undefined): SandboxResponse {
  return json(status, faultBody(status), retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });
}

function captureHandler(store: SandboxStore, options: CaptureOptions, sink: CaptureSink): RouteHandler {
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (req, ctx) => {
    sink.stats.requests++;
    const raw = await req.body();
    const fault = options.faults ? pickFault(options.faults, random) : undefined;
    const delayMs = options.faults ? slowDelayMs(options.faults, random) : 0;
    if (delayMs > 0) await sleep(delayMs);
    if (fault?.type === 'drop') return DROP;
    if (fault?.type === 'status') return faultResponse(fault.status, fault.retryAfterSeconds);
    const decoded = decodeBody(raw, gzipHinted(req), maxBytes);
    if (isProblem(decoded)) return problemResponse(decoded);
    const nowMs = ctx.now().getTime();
    // Count-only mode runs the same checks but builds no stored form (it would be thrown away).
    const capture = sink.countOnly
      ? checkCapture(decoded.text)
      : parseCapture(decoded.text, { nowMs, querySentAtMs: querySentAtMs(req.url), newUuid: () => uuidV7(nowMs) });
    if (isProblem(capture)) return problemResponse(capture);
    const teamId = projectIdForToken(store, capture.token);
    if (teamId === undefined) return problemResponse(captureProblem(401, 'invalid_token', 'API key is not valid: no project has this token'));
    sink.accept(teamId, capture, req.url.pathname, new Date(nowMs).toISOString());
    if (fault?.type === 'lose-answer') return DROP;
    return json(200, { status: 'Ok' });
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
  const sink = new CaptureSink(store, options.countOnly === true);
  const handler = observed(captureHandler(store, options, sink), sink, options.onRequest);
  const routes: Route[] = CAPTURE_PATHS.map((path) => ({ method: 'POST', path, handler }));
  routes.push({ method: 'GET', path: /^\/_sandbox\/stats\/?$/, handler: () => json(200, sink.stats) });
  return { routes, control: { stats: sink.stats } };
}
