/**
 * The person pipeline's refusal to merge on a placeholder id (`cannot_merge_with_illegal_distinct_id`),
 * applied by the sandbox on its own from PostHog's lists: the client's staging rules apply the
 * same lists with their own code, so a mistake in one is caught by the other.
 */
import { ILLEGAL_DISTINCT_IDS_ANY_CASE, ILLEGAL_DISTINCT_IDS_EXACT } from '../../posthog/lists.js';

const anyCase = new Set(ILLEGAL_DISTINCT_IDS_ANY_CASE);
const exact = new Set(ILLEGAL_DISTINCT_IDS_EXACT);

/** The id without one pair of surrounding quotes (single or double), as the pipeline also refuses the quoted forms. */
function unquoted(id: string): string {
  const quote = id[0];
  return id.length >= 2 && (quote === "'" || quote === '"') && id.endsWith(quote) ? id.slice(1, -1) : id;
}

/** True when the pipeline would refuse to merge on `id`: blank, or a listed placeholder, quoted or not. */
export function refusesToMergeOn(id: string): boolean {
  if (id.trim() === '') return true;
  const bare = unquoted(id);
  return anyCase.has(bare.toLowerCase()) || exact.has(bare);
}
