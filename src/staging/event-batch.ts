/**
 * Staged events in columns of bytes: typed arrays for the numbers and uuids, the names once
 * each, and one UTF-8 buffer holding each event's distinct_id and properties JSON back to back. A worker
 * thread hands a batch over without copying (the buffers are transferred), and the events'
 * text never becomes JS strings again on the writing side: SQLite reads the bytes directly.
 * Strings kept in arrays until a piece was written cost more garbage-collector time than
 * building them did.
 */
import { profileText, type RowFacts } from '../events/row-facts.js';
import type { StagedEvent } from '../events/staged-event.js';
import { PAIR_BY_SQL, type PairKey } from '../events/identity-pair.js';

export interface EventBatch {
  count: number;
  /** 16 bytes per event. */
  uuids: Uint8Array;
  kinds: Uint8Array;
  timestampsMs: Float64Array;
  /** Microseconds past each event's millisecond (0-999). */
  subMsUs: Uint16Array;
  /** Source line of each event. */
  lines: Float64Array;
  /** The event names of the batch, each once. */
  names: string[];
  /** Each event's name, as an index into `names`. */
  nameIndexes: Uint32Array;
  /** UTF-8 text: distinct_id and properties JSON of event 0, then of event 1, ... */
  text: Uint8Array;
  /** End offset in `text` of each of those fields: TEXT_FIELDS per event. */
  textEnds: Uint32Array;
  /** 1 for an event whose time a zone option decided; its key is in `zoneKeys`. */
  zoned: Uint8Array;
  /** 16 bytes per event (zeros unless zoned): see zonedRowKey. */
  zoneKeys: Uint8Array;
  /** FACT_* bits of each event (see row-facts.ts). */
  flags: Uint8Array;
  /** The row profiles of the batch as text (see row-facts.ts), each once ('' first). */
  profiles: string[];
  /** Each event's profile, as an index into `profiles`. */
  profileIndexes: Uint32Array;
  /** The batch was built with each event's identity pair drawn (a read of a link format on the worker path). */
  pairsDrawn: boolean;
  /** The identity pairs of the batch (see identity-pair.ts), each once. */
  pairs: string[];
  /** Each event's pair: NO_PAIR, PAIR_IN_SQL, or PAIR_BASE + its index into `pairs`. */
  pairIndexes: Uint32Array;
}

export const NO_PAIR = 0;
export const PAIR_IN_SQL = 1;
export const PAIR_BASE = 2;

/** The text fields of each event, in `text` order. */
export const TEXT_FIELDS = 2;
export const DISTINCT_ID = 0;
export const PROPERTIES = 1;

/** The buffers, to transfer rather than copy when posting a batch. */
export function batchTransferList(batch: EventBatch): ArrayBuffer[] {
  const arrays = [
    batch.uuids,
    batch.kinds,
    batch.timestampsMs,
    batch.subMsUs,
    batch.lines,
    batch.nameIndexes,
    batch.text,
    batch.textEnds,
    batch.zoned,
    batch.zoneKeys,
    batch.flags,
    batch.profileIndexes,
    batch.pairIndexes,
  ];
  return arrays.map((a) => a.buffer as ArrayBuffer);
}

/** The UTF-8 bytes of text field `field` (DISTINCT_ID or PROPERTIES) of event `i`. */
export function textBytes(batch: EventBatch, i: number, field: number): Uint8Array {
  const k = i * TEXT_FIELDS + field;
  return batch.text.subarray(k === 0 ? 0 : batch.textEnds[k - 1], batch.textEnds[k]);
}

/** Event `i` of a batch as a StagedEvent (for the rare paths that want one). */
export function eventAt(batch: EventBatch, i: number): StagedEvent {
  const decode = (field: number): string => Buffer.from(textBytes(batch, i, field)).toString('utf8');
  return {
    uuid: batch.uuids.subarray(i * 16, i * 16 + 16),
    kind: batch.kinds[i] as StagedEvent['kind'],
    event: batch.names[batch.nameIndexes[i]!]!,
    distinctId: decode(DISTINCT_ID),
    timestampMs: batch.timestampsMs[i]!,
    ...(batch.subMsUs[i] === 0 ? {} : { subMsUs: batch.subMsUs[i]! }),
    propertiesJson: decode(PROPERTIES),
  };
}

const INITIAL_EVENTS = 1024;
/** Each UTF-16 unit is at most 3 bytes of UTF-8. */
const MAX_UTF8_PER_UNIT = 3;

/** A byte buffer that grows; `writer` views the same memory for Buffer's fast UTF-8 writes. */
function bytes(size: number): { array: Uint8Array; writer: Buffer } {
  const array = new Uint8Array(size);
  return { array, writer: Buffer.from(array.buffer, 0, size) };
}

/** Appends events; `finish` gives the batch (its arrays may be longer than `count` needs). */
export class EventBatchBuilder {
  private capacity = INITIAL_EVENTS;
  private count = 0;
  private uuids = new Uint8Array(INITIAL_EVENTS * 16);
  private kinds = new Uint8Array(INITIAL_EVENTS);
  private timestampsMs = new Float64Array(INITIAL_EVENTS);
  private subMsUs = new Uint16Array(INITIAL_EVENTS);
  private lines = new Float64Array(INITIAL_EVENTS);
  private nameIndexes = new Uint32Array(INITIAL_EVENTS);
  private readonly names: string[] = [];
  private readonly nameIndex = new Map<string, number>();
  private textEnds = new Uint32Array(INITIAL_EVENTS * TEXT_FIELDS);
  private zoned = new Uint8Array(INITIAL_EVENTS);
  private zoneKeys = new Uint8Array(INITIAL_EVENTS * 16);
  private flags = new Uint8Array(INITIAL_EVENTS);
  private profileIndexes = new Uint32Array(INITIAL_EVENTS);
  private pairIndexes = new Uint32Array(INITIAL_EVENTS);
  private readonly pairs: string[] = [];
  private readonly pairIndex = new Map<string, number>();
  private readonly profiles: string[] = [''];
  private readonly profileIndex = new Map<string, number>([['', 0]]);
  private text: { array: Uint8Array; writer: Buffer };
  private textLength = 0;

  /**
   * @param expectedTextBytes a guess of the UTF-8 bytes the events' text will take (default 256 KiB).
   * @param pairsDrawn the caller gives each event's identity pair (see identity-pair.ts).
   */
  constructor(
    expectedTextBytes = 256 * 1024,
    private readonly pairsDrawn = false,
  ) {
    this.text = bytes(expectedTextBytes);
  }

  get length(): number {
    return this.count;
  }

  add(line: number, event: StagedEvent, zoneKey?: Uint8Array, facts?: RowFacts, pair?: PairKey | typeof PAIR_BY_SQL): void {
    if (this.count === this.capacity) this.grow();
    const i = this.count++;
    if (pair !== undefined) this.pairIndexes[i] = pair === PAIR_BY_SQL ? PAIR_IN_SQL : PAIR_BASE + indexIn(this.pairs, this.pairIndex, pair);
    if (facts !== undefined) {
      this.flags[i] = facts.flags;
      this.profileIndexes[i] = this.indexOfProfile(facts.profile);
    }
    if (zoneKey !== undefined) {
      this.zoned[i] = 1;
      this.zoneKeys.set(zoneKey, i * 16);
    }
    this.uuids.set(event.uuid, i * 16);
    this.kinds[i] = event.kind;
    this.timestampsMs[i] = event.timestampMs;
    this.subMsUs[i] = event.subMsUs ?? 0;
    this.lines[i] = line;
    this.nameIndexes[i] = this.indexOfName(event.event);
    const units = event.distinctId.length + event.propertiesJson.length;
    if (this.textLength + units * MAX_UTF8_PER_UNIT > this.text.array.length) this.growText(units * MAX_UTF8_PER_UNIT);
    const k = i * TEXT_FIELDS;
    this.textEnds[k + DISTINCT_ID] = this.textLength += this.text.writer.write(event.distinctId, this.textLength);
    this.textEnds[k + PROPERTIES] = this.textLength += this.text.writer.write(event.propertiesJson, this.textLength);
  }

  private indexOfName(name: string): number {
    return indexIn(this.names, this.nameIndex, name);
  }

  private indexOfProfile(profile: string): number {
    return indexIn(this.profiles, this.profileIndex, profile);
  }

  finish(): EventBatch {
    return {
      count: this.count,
      uuids: this.uuids,
      kinds: this.kinds,
      timestampsMs: this.timestampsMs,
      subMsUs: this.subMsUs,
      lines: this.lines,
      names: this.names,
      nameIndexes: this.nameIndexes,
      text: this.text.array,
      textEnds: this.textEnds,
      zoned: this.zoned,
      zoneKeys: this.zoneKeys,
      flags: this.flags,
      // Keys made on this thread become their text once, before the batch leaves it.
      profiles: this.profiles.map((key) => (key === '' ? '' : profileText(key))),
      profileIndexes: this.profileIndexes,
      pairsDrawn: this.pairsDrawn,
      pairs: this.pairs,
      pairIndexes: this.pairIndexes,
    };
  }

  private grow(): void {
    this.capacity *= 2;
    this.uuids = copyInto(new Uint8Array(this.capacity * 16), this.uuids);
    this.kinds = copyInto(new Uint8Array(this.capacity), this.kinds);
    this.timestampsMs = copyInto(new Float64Array(this.capacity), this.timestampsMs);
    this.subMsUs = copyInto(new Uint16Array(this.capacity), this.subMsUs);
    this.lines = copyInto(new Float64Array(this.capacity), this.lines);
    this.nameIndexes = copyInto(new Uint32Array(this.capacity), this.nameIndexes);
    this.textEnds = copyInto(new Uint32Array(this.capacity * TEXT_FIELDS), this.textEnds);
    this.zoned = copyInto(new Uint8Array(this.capacity), this.zoned);
    this.zoneKeys = copyInto(new Uint8Array(this.capacity * 16), this.zoneKeys);
    this.flags = copyInto(new Uint8Array(this.capacity), this.flags);
    this.profileIndexes = copyInto(new Uint32Array(this.capacity), this.profileIndexes);
    this.pairIndexes = copyInto(new Uint32Array(this.capacity), this.pairIndexes);
  }

  private growText(atLeast: number): void {
    const next = bytes(Math.max(this.text.array.length * 2, this.textLength + atLeast));
    next.array.set(this.text.array.subarray(0, this.textLength));
    this.text = next;
  }
}

/** The index of `text` in `list` (added when new), found through `index`. */
function indexIn(list: string[], index: Map<string, number>, text: string): number {
  let at = index.get(text);
  if (at === undefined) {
    at = list.push(text) - 1;
    index.set(text, at);
  }
  return at;
}

function copyInto<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(target: T, source: T): T {
  target.set(source as never);
  return target;
}
