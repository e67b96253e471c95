/**
 * Converts local wall-clock times in an IANA zone to UTC, with Intl only (no tz database of ours).
 * In a repeated hour (clocks turned back) the earlier instant is taken; in a skipped hour
 * (clocks turned forward) the time does not exist and the caller rejects it.
 */

export interface ZoneConverter {
  /** The name as given (`CET`), for messages: what the user typed. */
  readonly name: string;
  /** The name the time zone database resolves it to (`Europe/Brussels`). */
  readonly canonical: string;
  /** UTC ms for a wall-clock time given as if it were UTC ms; undefined in a DST gap. */
  toUtc(wallMs: number): number | undefined;
}

const DAY_MS = 86_400_000;
/** Offsets change on quarter hours at the finest, so one cache entry per 15 minutes is exact. */
const BUCKET_MS = 15 * 60_000;
const MAX_CACHE_ENTRIES = 200_000;

/** Throws RangeError for a name Intl does not know. */
export function createZoneConverter(name: string): ZoneConverter {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const canonical = format.resolvedOptions().timeZone;
  const cache = new Map<number, number>();

  /** The zone's offset from UTC at a UTC instant, in ms. */
  function offsetAt(utcMs: number): number {
    const bucket = Math.floor(utcMs / BUCKET_MS);
    const cached = cache.get(bucket);
    if (cached !== undefined) return cached;
    const probe = bucket * BUCKET_MS;
    const parts: Record<string, number> = {};
    for (const part of format.formatToParts(probe)) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
    const offset = asUtc - probe;
    if (cache.size >= MAX_CACHE_ENTRIES) cache.clear();
    cache.set(bucket, offset);
    return offset;
  }

  return {
    name,
    canonical,
    toUtc(wallMs: number): number | undefined {
      // A transition happens at most once within a day either side, so the offsets a day
      // before and after are the only candidates.
      const candidates = new Set([offsetAt(wallMs - DAY_MS), offsetAt(wallMs + DAY_MS)]);
      let best: number | undefined;
      for (const offset of candidates) {
        const utc = wallMs - offset;
        if (offsetAt(utc) === offset && (best === undefined || utc < best)) best = utc;
      }
      return best;
    },
  };
}
