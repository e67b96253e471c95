/**
 * The distinct_ids PostHog refuses to merge on (`cannot_merge_with_illegal_distinct_id`): ids
 * that SDKs and exports write when they have no real one. An `$identify` or alias naming one is
 * refused by PostHog, so the staging side never links on them, and the sandbox refuses them as
 * PostHog does. One list, here (see docs/posthog-reference.md, ingestion rules).
 */

/** Refused in any case: `Anonymous`, `GUEST`, ... */
export const CASE_INSENSITIVE_ILLEGAL_IDS: readonly string[] = ['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false'];
/** Refused exactly as written. */
export const CASE_SENSITIVE_ILLEGAL_IDS: readonly string[] = ['[object Object]', 'NaN', 'None', 'none', 'null', '0'];

const quoted = (ids: readonly string[]): string[] => ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]);
const ILLEGAL_LOWER = new Set(quoted(CASE_INSENSITIVE_ILLEGAL_IDS));
const ILLEGAL_EXACT = new Set(quoted(CASE_SENSITIVE_ILLEGAL_IDS));

/** True for an id PostHog will not merge on: the lists above, their quoted forms, empty or blank ids. */
export function isIllegalMergeId(id: string): boolean {
  return id.trim() === '' || ILLEGAL_LOWER.has(id.toLowerCase()) || ILLEGAL_EXACT.has(id);
}
