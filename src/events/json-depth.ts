/**
 * How deeply a JSON text nests objects and arrays. The staging file stores properties as SQLite
 * JSONB, which takes at most MAX_JSON_DEPTH levels; deeper properties are a reject, not a
 * failed write.
 */

/** SQLite's JSON nesting limit (the outer properties object is level 1). */
export const MAX_JSON_DEPTH = 1000;

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

/** True when `json` may nest deeper than the limit: only long texts can, so most skip the scan. */
export function tooDeep(json: string): boolean {
  return json.length > 2 * MAX_JSON_DEPTH && jsonDepth(json) > MAX_JSON_DEPTH;
}
