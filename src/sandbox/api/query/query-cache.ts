/**
 * The query endpoint's result cache, as PostHog keeps it: an identical query of the same
 * project is answered from the cache while the cached answer is fresh, unless the request's
 * `refresh` forces a new calculation. A HogQL answer stays fresh as long as a day insight's
 * (six hours). The store is in memory, like PostHog's Redis: a restart forgets it.
 */
import { createHash } from 'node:crypto';

/** How long a HogQL query's answer is served from the cache. */
export const HOGQL_CACHE_MS = 6 * 3_600_000;

/** Entries kept at most; the oldest go first (a sandbox never runs long enough to need more). */
const MAX_ENTRIES = 5_000;

/** What `refresh` asks for: use the cache when fresh, always calculate, or never calculate. */
export type CacheMode = 'cache-if-fresh' | 'calculate' | 'cache-only';

/** The execution mode a request's `refresh` names, or undefined for one the sandbox does not run. */
export function cacheModeOf(refresh: unknown): CacheMode | undefined {
  // QueryRequest's default is "blocking": an identical query is answered from a fresh cache.
  if (refresh === undefined || refresh === null || refresh === 'blocking') return 'cache-if-fresh';
  if (refresh === 'force_blocking' || refresh === true) return 'calculate';
  if (refresh === false || refresh === 'force_cache') return 'cache-only';
  return undefined;
}

export interface CachedAnswer {
  /** The answer body as first computed, without the cache fields. */
  body: Record<string, unknown>;
  lastRefreshMs: number;
}

/** The cache key: the project and the query object as sent (PostHog hashes the query with the team). */
export function cacheKeyOf(projectId: number, query: unknown): string {
  return `cache_${createHash('sha256')
    .update(`${projectId}:${JSON.stringify(query)}`)
    .digest('hex')
    .slice(0, 32)}`;
}

export class QueryCache {
  private readonly entries = new Map<string, CachedAnswer>();

  /** The cached answer under `key` while it is fresh at `nowMs`. */
  fresh(key: string, nowMs: number): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    return nowMs > entry.lastRefreshMs + HOGQL_CACHE_MS ? undefined : entry;
  }

  /** The cached answer under `key`, fresh or not (what `force_cache` answers). */
  any(key: string): CachedAnswer | undefined {
    return this.entries.get(key);
  }

  store(key: string, entry: CachedAnswer): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}
