/**
 * How much disk the staging file needs next: for sources about to be staged, or for the
 * delivery records of an import. Estimates, on the safe side. Pure.
 */

/** The staging file against a CSV source: measured at 1.42 (BENCHMARKS.md), rounded up. */
export const STAGING_PER_SOURCE_BYTE = 1.5;
/** A compressed source's text against its size on disk, assumed (gzip shrinks JSON and CSV about 8-fold). */
export const COMPRESSED_EXPANSION = 8;
/** The write-ahead log beside the staging file while a command writes to it, at most about this. */
export const WAL_ALLOWANCE_BYTES = 8 * 1024 * 1024;
/** One delivered event's record (its row in the deliveries table and its share of the pages). */
export const DELIVERY_BYTES_PER_EVENT = 32;

export interface SourceSize {
  path: string;
  sizeBytes: number;
  compressed: boolean;
}

export interface StagingNeed {
  bytes: number;
  /** False when a compressed source's text size was guessed: then the estimate only warns. */
  exact: boolean;
}

/**
 * What staging `sources` adds: the bytes not staged before (a source staged at its current size
 * adds nothing, one that grew adds its growth), at 1.5 times, plus the write-ahead log.
 */
export function stagingNeed(sources: readonly SourceSize[], stagedSizes: ReadonlyMap<string, number>): StagingNeed {
  let bytes = 0;
  let exact = true;
  for (const source of sources) {
    const newBytes = Math.max(0, source.sizeBytes - (stagedSizes.get(source.path) ?? 0));
    if (newBytes === 0) continue;
    if (source.compressed) exact = false;
    bytes += newBytes * (source.compressed ? COMPRESSED_EXPANSION : 1) * STAGING_PER_SOURCE_BYTE;
  }
  return { bytes: bytes === 0 ? 0 : Math.ceil(bytes) + WAL_ALLOWANCE_BYTES, exact };
}

/** What an import of `pendingEvents` adds to the staging file: its delivery records and the write-ahead log. */
export function importNeed(pendingEvents: number): number {
  return pendingEvents <= 0 ? 0 : pendingEvents * DELIVERY_BYTES_PER_EVENT + WAL_ALLOWANCE_BYTES;
}

/** `short` under the need, `tight` under twice the need, else `enough`. */
export function roomFor(freeBytes: number, neededBytes: number): 'short' | 'tight' | 'enough' {
  if (freeBytes < neededBytes) return 'short';
  if (freeBytes < 2 * neededBytes) return 'tight';
  return 'enough';
}
