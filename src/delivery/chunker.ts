/**
 * Cuts the send-ordered stream of events into chunks: at most `maxEvents` events and
 * `maxBytes` of body, never mixing kinds (person and group updates go after events) and never
 * spanning two UTC days (PostHog asks for historical data batched by day).
 */
import type { EncodedEvent } from './event-encoding.js';

export interface ChunkLimits {
  maxEvents: number;
  maxBytes: number;
  /** Bytes of the body around the events (see bodyOverheadBytes). */
  overheadBytes: number;
}

export interface Chunk {
  events: EncodedEvent[];
  /** Uncompressed body size, in bytes. */
  bytes: number;
  kind: number;
}

const DAY_MS = 86_400_000;

export function utcDay(timestampMs: number): number {
  return Math.floor(timestampMs / DAY_MS);
}

/** Body size of these events: overhead, each event and the commas between them. */
export function chunkBytes(events: readonly EncodedEvent[], overheadBytes: number): number {
  let bytes = overheadBytes + Math.max(0, events.length - 1);
  for (const e of events) bytes += e.bytes;
  return bytes;
}

export function makeChunk(events: EncodedEvent[], overheadBytes: number): Chunk {
  return { events, bytes: chunkBytes(events, overheadBytes), kind: events[0]?.kind ?? 0 };
}

/** Two halves of a chunk (for a 413 or to isolate a rejected event); needs 2+ events. */
export function splitChunk(chunk: Chunk, overheadBytes: number): [Chunk, Chunk] {
  const middle = Math.ceil(chunk.events.length / 2);
  return [makeChunk(chunk.events.slice(0, middle), overheadBytes), makeChunk(chunk.events.slice(middle), overheadBytes)];
}

export class ChunkBuilder {
  private events: EncodedEvent[] = [];
  private bytes = 0;

  constructor(private readonly limits: ChunkLimits) {}

  /** Adds an event; returns the chunk that had to be closed first, if any. */
  add(event: EncodedEvent): Chunk | undefined {
    const closed = this.fits(event) ? undefined : this.flush();
    this.events.push(event);
    this.bytes += event.bytes + (this.events.length > 1 ? 1 : 0);
    return closed;
  }

  /** Closes the chunk being built; undefined when empty. */
  flush(): Chunk | undefined {
    if (this.events.length === 0) return undefined;
    const chunk: Chunk = { events: this.events, bytes: this.limits.overheadBytes + this.bytes, kind: this.events[0]!.kind };
    this.events = [];
    this.bytes = 0;
    return chunk;
  }

  private fits(event: EncodedEvent): boolean {
    const first = this.events[0];
    if (first === undefined) return true;
    if (this.events.length >= this.limits.maxEvents) return false;
    if (first.kind !== event.kind || utcDay(first.timestampMs) !== utcDay(event.timestampMs)) return false;
    return this.limits.overheadBytes + this.bytes + 1 + event.bytes <= this.limits.maxBytes;
  }
}
