/**
 * The service's personal-key rate limits: 480 requests a minute (burst) and 4,800 an hour
 * (sustained), per key; the query endpoint's own on top (240 a minute and 2,400 an hour on
 * Cloud, 120 an hour for some projects). Counted in memory per store with the sandbox's
 * injected clock.
 */
import type { SandboxStore } from '../sandbox-store.js';

export interface ThrottleWindow {
  limit: number;
  spanMs: number;
}

const WINDOWS: readonly ThrottleWindow[] = [
  { limit: 480, spanMs: 60_000 },
  { limit: 4800, spanMs: 3_600_000 },
];
const LONGEST_MS = 3_600_000;

const seen = new WeakMap<SandboxStore, Map<string, number[]>>();

/**
 * Pure: given the times of a key's earlier requests (oldest first) and now, how many seconds
 * until the next request is allowed, or 0 when it is allowed now.
 */
export function throttleWaitSeconds(times: readonly number[], nowMs: number, windows: readonly ThrottleWindow[] = WINDOWS): number {
  let waitMs = 0;
  for (const { limit, spanMs } of windows) {
    const inWindow = times.filter((t) => t > nowMs - spanMs);
    if (inWindow.length >= limit) {
      const oldestThatMustExpire = inWindow[inWindow.length - limit]!;
      waitMs = Math.max(waitMs, oldestThatMustExpire + spanMs - nowMs);
    }
  }
  return waitMs === 0 ? 0 : Math.max(1, Math.ceil(waitMs / 1000));
}

/** Records a request by `keyId` at `nowMs` unless it is throttled; returns the wait in seconds. */
export function takeRequest(store: SandboxStore, keyId: string, nowMs: number, windows: readonly ThrottleWindow[] = WINDOWS): number {
  let perKey = seen.get(store);
  if (perKey === undefined) seen.set(store, (perKey = new Map()));
  const times = (perKey.get(keyId) ?? []).filter((t) => t > nowMs - LONGEST_MS);
  const wait = throttleWaitSeconds(times, nowMs, windows);
  if (wait === 0) times.push(nowMs);
  perKey.set(keyId, times);
  return wait;
}
