/**
 * Cuts the send-ordered stream of events into chunks: at most `maxEvents` events and
 * `maxBytes` of body, never mixing kinds (each kind goes in its turn, see send-order.ts) and never
 * spanning two UTC days (PostHog asks for historical data batched by day).
 *
 * A chunk holds its events as one buffer of UTF-8 JSON (events joined by commas) with the
 * offsets where each ends, not as an object per event: chunks live until the server answers,
 * and a million small long-lived objects cost more in garbage collection than the encoding.
 */
import type { ChunkPersons } from './chunk-persons.js';
import { writeIsoTimestamp, type EncodedEvent } from './event-encoding.js';
import { stagedJsonMaxBytes, writeStagedJson } from './staged-json.js';

export interface ChunkLimits {
  maxEvents: number;
  maxBytes: number;
  /** Bytes of the body around the events (see bodyOverheadBytes). */
  overheadBytes: number;
}

export interface Chunk {
  kind: number;
  /** Staging seqs of its events, in body order. */
  seqs: number[];
  /** The events' JSON joined by commas (UTF-8): the body without what surrounds the events. */
  eventsJson: Buffer;
  /** Byte offset in `eventsJson` where each event's JSON ends (exclusive). */
  ends: number[];
  /** Uncompressed body size, in bytes (overhead included). */
  bytes: number;
  /**
   * The whole /batch/ body, gzip-compressed, when the reading thread made it (an import's
   * chunks as read; halves of a split chunk have none and are compressed when sent).
   */
  gzipBody?: Buffer;
  /** The persons its events touch (events only; an import's chunks as read): see chunk-persons.ts. */
  persons?: ChunkPersons;
}

const DAY_MS = 86_400_000;
const COMMA = 0x2c;
/** A UTF-16 code unit takes at most 3 bytes of UTF-8. */
const MAX_UTF8_BYTES_PER_UNIT = 3;
const INITIAL_BUFFER_BYTES = 1024 * 1024;
/** An ISO timestamp with a six-digit signed year and microseconds. */
const TIMESTAMP_MAX_BYTES = 30;

export function utcDay(timestampMs: number): number {
  return Math.floor(timestampMs / DAY_MS);
}

/** The JSON of the chunk's `index`-th event. */
export function eventJsonAt(chunk: Chunk, index: number): string {
  const start = index === 0 ? 0 : chunk.ends[index - 1]! + 1;
  return chunk.eventsJson.toString('utf8', start, chunk.ends[index]);
}

/** The JSON of the chunk's first `count` events, joined by commas. */
export function leadingEventsJson(chunk: Chunk, count: number): Buffer {
  const n = Math.min(count, chunk.seqs.length);
  return chunk.eventsJson.subarray(0, n === 0 ? 0 : chunk.ends[n - 1]);
}

/** Two halves of a chunk (for a 413 or to isolate a rejected event); needs 2+ events. */
export function splitChunk(chunk: Chunk, overheadBytes: number): [Chunk, Chunk] {
  return splitAt(chunk, Math.ceil(chunk.seqs.length / 2), overheadBytes);
}

/**
 * The chunk's leading events whose body fits in `maxBytes` (at least one event, however large),
 * and the rest, if any: for a host that takes only smaller bodies.
 */
export function leadingPiece(chunk: Chunk, maxBytes: number, overheadBytes: number): [Chunk, Chunk | undefined] {
  if (chunk.bytes <= maxBytes || chunk.seqs.length === 1) return [chunk, undefined];
  let low = 1;
  let high = chunk.seqs.length - 1;
  // The largest count of leading events whose body fits (ends are increasing).
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (overheadBytes + chunk.ends[mid - 1]! <= maxBytes) low = mid;
    else high = mid - 1;
  }
  return splitAt(chunk, low, overheadBytes);
}

function splitAt(chunk: Chunk, middle: number, overheadBytes: number): [Chunk, Chunk] {
  const cut = chunk.ends[middle - 1]!;
  const first = chunk.eventsJson.subarray(0, cut);
  const second = chunk.eventsJson.subarray(cut + 1); // after the comma
  return [
    { kind: chunk.kind, seqs: chunk.seqs.slice(0, middle), eventsJson: first, ends: chunk.ends.slice(0, middle), bytes: overheadBytes + first.length },
    {
      kind: chunk.kind,
      seqs: chunk.seqs.slice(middle),
      eventsJson: second,
      ends: chunk.ends.slice(middle).map((end) => end - cut - 1),
      bytes: overheadBytes + second.length,
    },
  ];
}

export class ChunkBuilder {
  /** Scratch space the chunk being built is written into; copied out when it closes. */
  private buffer = Buffer.allocUnsafe(INITIAL_BUFFER_BYTES);
  private used = 0;
  private seqs: number[] = [];
  private ends: number[] = [];
  private kind = 0;
  private day = 0;

  constructor(private readonly limits: ChunkLimits) {}

  /** Adds an event; returns the chunk that had to be closed first, if any. */
  add(event: EncodedEvent): Chunk | undefined {
    const empty = this.seqs.length === 0;
    // The event is written after the chunk's bytes (and a comma) before deciding whether it
    // fits: its UTF-8 length is known only once written.
    const start = empty ? 0 : this.used + 1;
    const bytes = this.write(event, start);
    let closed: Chunk | undefined;
    let at = start;
    if (empty) {
      this.begin(event);
    } else if (this.fits(event, bytes)) {
      this.buffer[this.used] = COMMA;
    } else {
      closed = this.flush();
      this.buffer.copyWithin(0, start, start + bytes);
      at = 0;
      this.begin(event);
    }
    this.used = at + bytes;
    this.seqs.push(event.seq);
    this.ends.push(this.used);
    return closed;
  }

  /** Closes the chunk being built; undefined when empty. */
  flush(): Chunk | undefined {
    if (this.seqs.length === 0) return undefined;
    const eventsJson = Buffer.from(this.buffer.subarray(0, this.used)); // a copy
    const chunk: Chunk = { kind: this.kind, seqs: this.seqs, eventsJson, ends: this.ends, bytes: this.limits.overheadBytes + this.used };
    this.seqs = [];
    this.ends = [];
    this.used = 0;
    return chunk;
  }

  /** Writes the event's JSON at `start`; returns its bytes. */
  private write(event: EncodedEvent, start: number): number {
    if (!('head' in event)) {
      this.reserve(start + stagedJsonMaxBytes(event));
      return writeStagedJson(this.buffer, start, event);
    }
    this.reserve(start + (event.head.length + event.tail.length) * MAX_UTF8_BYTES_PER_UNIT + TIMESTAMP_MAX_BYTES);
    let bytes = this.buffer.write(event.head, start, 'utf8');
    bytes += writeIsoTimestamp(this.buffer, start + bytes, event.timestampMs, event.subMsUs);
    return bytes + this.buffer.write(event.tail, start + bytes, 'utf8');
  }

  private begin(event: EncodedEvent): void {
    this.kind = event.kind;
    this.day = utcDay(event.timestampMs);
  }

  private fits(event: EncodedEvent, bytes: number): boolean {
    if (this.seqs.length >= this.limits.maxEvents) return false;
    if (event.kind !== this.kind || utcDay(event.timestampMs) !== this.day) return false;
    return this.limits.overheadBytes + this.used + 1 + bytes <= this.limits.maxBytes;
  }

  private reserve(bytes: number): void {
    if (bytes <= this.buffer.length) return;
    const larger = Buffer.allocUnsafe(Math.max(bytes, this.buffer.length * 2));
    this.buffer.copy(larger, 0, 0, this.used);
    this.buffer = larger;
  }
}
