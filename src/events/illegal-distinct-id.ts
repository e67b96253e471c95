/**
 * The distinct_ids PostHog refuses to merge on (`cannot_merge_with_illegal_distinct_id`): the
 * placeholders a broken client sends instead of a real id. Every event sent with one of them
 * lands on one person shared by everyone who sent it, and an `$identify` or alias naming one is
 * not merged. The lists are PostHog's (posthog/lists.ts); the sandbox applies them on its own. Pure.
 */
import { ILLEGAL_DISTINCT_IDS_ANY_CASE as CASE_INSENSITIVE, ILLEGAL_DISTINCT_IDS_EXACT as CASE_SENSITIVE } from '../posthog/lists.js';

/** Each id, and its single- and double-quoted forms (what a client that stringified twice sends). */
const withQuotes = (ids: readonly string[]): string[] => ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]);
const ILLEGAL_LOWER = new Set(withQuotes(CASE_INSENSITIVE));
const ILLEGAL_EXACT = new Set(withQuotes(CASE_SENSITIVE));
/** Longer than any illegal id: most ids are, and need no lower-casing. */
const LONGEST = Math.max(...[...ILLEGAL_LOWER, ...ILLEGAL_EXACT].map((id) => id.length));

/** True for an id PostHog will not merge on, empty and whitespace-only ids included. */
export function isIllegalDistinctId(id: string): boolean {
  if (id.length > LONGEST) return id.trim() === '';
  return id.trim() === '' || ILLEGAL_LOWER.has(id.toLowerCase()) || ILLEGAL_EXACT.has(id);
}
