/**
 * The send-ordered stream of chunks: pending events read page by page from a source and cut
 * by a ChunkBuilder. It runs where the pages are read: on a worker thread during an import
 * (src/import/chunk-reader.ts), in-process for a dry run.
 */
import { ChunkBuilder, type Chunk, type ChunkLimits } from './chunker.js';
import type { DeliverySettings } from './delivery-options.js';
import type { EncodedEvent } from './event-encoding.js';

/** Position in send order (kind, timestamp, seq); pages start after it. */
export interface SendCursor {
  kind: number;
  timestampMs: number;
  seq: number;
}

export interface DeliverySource {
  /** Up to `limit` pending events after `after` in send order, encoded. */
  page(after: SendCursor | undefined, limit: number): EncodedEvent[];
}

/**
 * Rows per page read. A page is read whole, without a break (better-sqlite3 is synchronous);
 * about a chunk's worth keeps each read short (about 3 ms) whatever shares its thread.
 */
const PAGE_EVENTS = 1024;

export function chunkLimits(settings: DeliverySettings, overheadBytes: number): ChunkLimits {
  return { maxEvents: settings.chunkEvents, maxBytes: settings.chunkBytes, overheadBytes };
}

/** Chunks in send order, reading pages lazily; stops after `maxEvents` events. */
export function* chunkStream(source: DeliverySource, limits: ChunkLimits, maxEvents = Number.POSITIVE_INFINITY): Generator<Chunk> {
  const builder = new ChunkBuilder(limits);
  let cursor: SendCursor | undefined;
  let taken = 0;
  while (taken < maxEvents) {
    const rows = source.page(cursor, Math.min(PAGE_EVENTS, maxEvents - taken));
    if (rows.length === 0) break;
    for (const row of rows) {
      const closed = builder.add(row);
      if (closed) yield closed;
    }
    taken += rows.length;
    const last = rows[rows.length - 1]!;
    cursor = { kind: last.kind, timestampMs: last.timestampMs, seq: last.seq };
  }
  const rest = builder.flush();
  if (rest) yield rest;
}
