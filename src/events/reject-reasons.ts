/**
 * Why a source row was not staged. One code per rule, so `status` and `rejects` can group them
 * and a user can grep for one kind of problem.
 */
export const REJECT_REASONS = {
  bad_csv: 'the row is not valid CSV',
  bad_json: 'the line is not a JSON object',
  invalid_utf8: "the row holds bytes that are not valid in the file's encoding (UTF-8 unless --encoding)",
  invalid_unicode: 'a string holds a lone UTF-16 surrogate, which PostHog refuses',
  too_large: 'the row is larger than an event can be (1 MiB)',
  too_deep: 'properties nest deeper than PostHog accepts',
  number_out_of_range: 'a number beyond what PostHog can keep (1e400)',
  missing_event: 'no event name',
  missing_distinct_id: 'no distinct_id',
  distinct_id_too_long: 'distinct_id longer than 200 characters',
  missing_timestamp: 'no timestamp',
  bad_timestamp: 'timestamp not understood',
  timestamp_without_zone: 'timestamp has no time zone',
  nonexistent_local_time: 'local time that does not exist in the time zone',
  future_timestamp: 'timestamp more than 23 hours in the future',
  implausible_timestamp: 'timestamp before --min-time (a placeholder such as 0 or 1900-01-01)',
  bad_properties: 'properties is not a JSON object',
  duplicate_property: 'a property is given twice',
  bad_uuid: 'uuid is not a valid UUID',
  event_too_large: 'event larger than the per-event limit',
  bad_value: 'a field has an invalid value',
  transform_error: 'the --transform module threw on this row',
  transform_invalid: 'the --transform module returned something that is not a valid event',
  missing_group_key: 'no group key',
  group_key_too_long: 'group key longer than 400 characters',
  illegal_distinct_id: 'an $identify or alias names a distinct_id PostHog refuses to merge on (such as "null" or "anonymous")',
  person_properties_too_large: 'a person update whose properties are over 512 KB (PostHog caps a person at 512 KB)',
  bad_property_type: 'a property the map file gives a type cannot be given that type',
  conflicts_with_staged: 'the same row was staged earlier with different content (another file, map or time zone)',
} as const;

export type RejectReason = keyof typeof REJECT_REASONS;

/** A row that cannot be staged: which field, which rule, and a sentence for the user. */
export interface RowProblem {
  /** The source field at fault (column or JSON path), or '' when the whole row is. */
  field: string;
  reason: RejectReason;
  message: string;
}

export function problem(reason: RejectReason, field: string, message: string): RowProblem {
  return { reason, field, message };
}
