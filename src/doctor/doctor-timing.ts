/** How patient doctor's requests are: it is interactive. */
import type { RetryPolicy } from '../http/retry-policy.js';

/** Retries of doctor's requests: a short budget. */
export const DOCTOR_RETRY_POLICY: RetryPolicy = { initialDelayMs: 500, maxDelayMs: 5_000, maxTotalWaitMs: 20_000 };
/** Bound for one of doctor's requests, in ms. */
export const DOCTOR_TIMEOUT_MS = 30_000;
