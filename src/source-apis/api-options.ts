/**
 * The source APIs' tuning options, as rows of the same table as delivery's options
 * (delivery/delivery-options.ts): flag, bound, default and unit, each written once. The names
 * match delivery's retry options; the defaults are the source APIs' own, patient ones. Pure.
 */
import { integer } from '../delivery/delivery-options.js';
import type { RetryPolicy } from '../http/retry-policy.js';

export const API_OPTIONS = [
  // An export may think for minutes before its first byte.
  integer('idleTimeoutMs', { flag: '--idle-timeout-ms <ms>', min: 1, default: 300_000, unit: 'ms', help: 'source APIs: longest silence of an answer' }),
  integer('retryInitialMs', { flag: '--retry-initial-ms <ms>', min: 0, default: 1000, unit: 'ms', help: 'source APIs: first retry delay' }),
  integer('retryMaxDelayMs', { flag: '--retry-max-delay-ms <ms>', min: 0, default: 60_000, unit: 'ms', help: 'source APIs: longest computed retry delay' }),
  // Wall time from a range's first request, so it holds the downloads themselves (a day of
  // Mixpanel can take many minutes) and the waits for the rate limit as well as the backoffs:
  // a range is worth waiting for.
  integer('retryBudgetMs', { flag: '--retry-budget-ms <ms>', min: 0, default: 2 * 3_600_000, unit: 'ms', help: "source APIs: most time from a range's first request to its last retry" }),
] as const;

export type ApiOptionKey = (typeof API_OPTIONS)[number]['key'];

/** The source APIs' options as given, each undefined when not. */
export type GivenApiOptions = Partial<Record<ApiOptionKey, number>>;

function valueOf(given: GivenApiOptions, key: ApiOptionKey): number {
  const row = API_OPTIONS.find((option) => option.key === key)!;
  return given[key] ?? (row.default as number);
}

/** The idle timeout and the retry policy of a source API run: the given options, else the table's defaults. */
export function apiRequestSettings(given: GivenApiOptions): { idleTimeoutMs: number; retryPolicy: RetryPolicy } {
  return {
    idleTimeoutMs: valueOf(given, 'idleTimeoutMs'),
    retryPolicy: { initialDelayMs: valueOf(given, 'retryInitialMs'), maxDelayMs: valueOf(given, 'retryMaxDelayMs'), maxTotalWaitMs: valueOf(given, 'retryBudgetMs') },
  };
}
