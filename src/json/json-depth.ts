/**
 * How deeply a JSON text nests objects and arrays. PostHog refuses deep JSON (see
 * MAX_PROPERTIES_DEPTH), and the staging file stores properties as SQLite JSONB, which takes
 * at most SQLITE_MAX_JSON_DEPTH levels: deeper properties are a reject, not a failed request or write.
 */
import { CAPTURE_JSON_DEPTH_LIMIT } from '../posthog/limits.js';

/**
 * The deepest an event's properties may nest, counting the properties object itself. PostHog's
 * capture (serde_json) refuses a request nested CAPTURE_JSON_DEPTH_LIMIT (128) levels deep, counted
 * from the /batch/ body: body, batch list and event take three of the 127 it reads, which leaves 124. Readers bound the rows they parse
 * (without recursion, so no depth can crash them) and buildEvent checks the properties as
 * staged: deeper ones are a too_deep reject.
 */
export const MAX_PROPERTIES_DEPTH = CAPTURE_JSON_DEPTH_LIMIT - 1 - 3;

/** SQLite's JSON nesting limit (the outer properties object is level 1): a limit of the staging file, not of PostHog. */
export const SQLITE_MAX_JSON_DEPTH = 1000;

/** The deepest nesting in `json` (valid JSON text); strings are skipped, escapes included. */
export function jsonDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < json.length && json.charCodeAt(i) !== 34; i++) if (json.charCodeAt(i) === 92 /* \ */) i++;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return deepest;
}

/**
 * True when `json` (valid JSON text) nests deeper than `limit`. Only a text with more brackets
 * than the limit can, so nearly every text is settled by counting them with indexOf; the
 * others are scanned.
 */
export function nestsDeeperThan(json: string, limit: number): boolean {
  let brackets = 0;
  for (const open of ['{', '[']) {
    for (let i = json.indexOf(open); i !== -1 && brackets <= limit; i = json.indexOf(open, i + 1)) brackets++;
  }
  return brackets > limit && jsonDepth(json) > limit;
}
