/**
 * PostHog's limits, each written once, with where in PostHog it comes from (the story of each is
 * in docs/posthog-reference.md). The client reads them to stay within them; the sandbox reads them
 * to enforce them as PostHog does. Facts only: the code that applies a limit stays with its user,
 * because the sandbox is the client's check and must not share the client's judgement
 * (CONTRIBUTING.md, "PostHog's facts"). Pure: imports nothing.
 */

/**
 * Capture (Rust) parses a body with serde_json, whose recursion limit is 128: a request nested
 * 128 levels deep (the body itself is level 1) fails with 400, so 127 levels are the most it reads.
 */
export const CAPTURE_JSON_DEPTH_LIMIT = 128;

/** Ingestion replaces a timestamp more than 23 hours ahead of the event's arrival with the arrival time. */
export const FUTURE_TIMESTAMP_ALLOWANCE_MS = 23 * 60 * 60 * 1000;

/** Capture: the largest body as received (20 MiB); a larger one is refused with 413. */
export const CAPTURE_MAX_RECEIVED_BYTES = 20 * 1024 * 1024;

/** Capture: the largest body once decompressed (100 MiB). */
export const CAPTURE_MAX_DECOMPRESSED_BYTES = 100 * 1024 * 1024;

/** Capture produces each event to Kafka with a limit of about 1 MB; a larger event is refused (413). */
export const CAPTURE_MAX_EVENT_BYTES = 1_000_000;

/** PostHog's official client libraries drop an event over 900 KiB before sending it (their MAX_MSG_SIZE). */
export const CLIENT_MAX_EVENT_BYTES = 900 * 1024;

/** Capture cuts a distinct_id to 200 characters: two ids with the same first 200 become one person. */
export const MAX_DISTINCT_ID_CHARS = 200;

/** The person and group pipeline: a group type or group key is at most 400 characters. */
export const MAX_GROUP_KEY_CHARS = 400;

/** The person pipeline keeps at most 512 KiB of properties per person. */
export const MAX_PERSON_PROPERTIES_BYTES = 512 * 1024;

/** Group types per project (indexes 0 to 4): the group type mapping refuses a sixth. */
export const MAX_GROUP_TYPES = 5;

/** The query API (HogQL): the most rows one answer holds (PostHog's MAX_SELECT_RETURNED_ROWS); a larger LIMIT is lowered to it. */
export const MAX_QUERY_ROWS = 50_000;
