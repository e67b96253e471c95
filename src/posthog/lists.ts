/**
 * PostHog's lists, each written once, with where in PostHog it comes from. Read by the client
 * and by the sandbox; the code that applies them stays with each (see limits.ts). Pure.
 */

/**
 * The distinct_ids the person pipeline refuses to merge on (`cannot_merge_with_illegal_distinct_id`),
 * compared ignoring case. The pipeline also refuses the single- and double-quoted form of each
 * id in both lists, and an empty or whitespace-only id.
 */
export const ILLEGAL_DISTINCT_IDS_ANY_CASE: readonly string[] = ['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false'];

/** The same refusal, for ids compared exactly. */
export const ILLEGAL_DISTINCT_IDS_EXACT: readonly string[] = ['[object Object]', 'NaN', 'None', 'none', 'null', '0'];

/** The exports API's `export_format` choices (the exported asset's model), with the file extension of each. */
export const EXPORT_FORMATS = {
  'image/png': 'png',
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'video/webm': 'webm',
  'video/mp4': 'mp4',
  'image/gif': 'gif',
  'application/json': 'json',
} as const;

export type ExportFormat = keyof typeof EXPORT_FORMATS;
