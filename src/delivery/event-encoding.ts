/**
 * Staged rows as the JSON PostHog's /batch/ takes. The stored properties text is spliced in
 * unchanged, so a re-sent event is byte-for-byte the same and PostHog's dedup key
 * (day, event, distinct_id, uuid) collapses it.
 *
 * `encodeEvent` is the definition of an event's JSON. The staging store builds the same text in
 * SQL while it reads pending pages (src/staging/event-json-sql.ts; a table-driven test proves
 * the two equal, byte for byte).
 *
 * No `sent_at` is sent: the server would shift every timestamp by (its clock - sent_at), and a
 * chunk retried later would land shifted. Timestamps are absolute UTC and used as given.
 */

/** One staged row, as stored in the staging file. */
export interface OutgoingEvent {
  /** Staging order; the checkpoint records it. */
  seq: number;
  uuid: string;
  kind: number;
  event: string;
  distinctId: string;
  timestampMs: number;
  /** Microseconds past timestampMs (0-999); absent means 0. */
  subMsUs?: number;
  propertiesJson: string;
}

/**
 * An event ready to go into a body, with what chunking and the checkpoint need. Its JSON is
 * `head`, the timestamp's ISO text, then `tail` (see encodedJson): the timestamp is written
 * straight into the chunk's bytes, which is cheaper than making a string of each.
 */
export interface TextEvent {
  seq: number;
  kind: number;
  timestampMs: number;
  /** Microseconds past timestampMs (0-999); absent means 0. */
  subMsUs?: number;
  /** The event's JSON up to and including `"timestamp":"`. */
  head: string;
  /** The event's JSON from the timestamp's closing quote on. */
  tail: string;
}

/**
 * An event as a page read gives it: its JSON in staged-json form, `json[start, end)` (see
 * staged-json.ts), bytes that go into the chunk without becoming a string.
 */
export interface StagedJsonEvent {
  seq: number;
  kind: number;
  timestampMs: number;
  /** Microseconds past timestampMs (0-999); absent means 0. */
  subMsUs?: number;
  json: Buffer;
  start: number;
  end: number;
}

export type EncodedEvent = TextEvent | StagedJsonEvent;

/** The full JSON text of an event in text form. */
export function encodedJson(e: TextEvent): string {
  return e.head + isoTimestamp(e.timestampMs, e.subMsUs) + e.tail;
}

const DAY_MS = 86_400_000;
/** `YYYY-MM-DDTHH:MM:SS.mmmZ` */
const ISO_LENGTH = 24;
const COLON = 0x3a;
const DOT = 0x2e;
const Z = 0x5a;
let cachedDay = Number.NaN;
let cachedDayBytes = Buffer.alloc(0);

/** True when `ms`'s day prefix is cached (or could be): years 0000-9999, whole milliseconds. */
function cacheDay(ms: number): boolean {
  const day = Math.floor(ms / DAY_MS);
  if (day === cachedDay) return true;
  const iso = new Date(day * DAY_MS).toISOString();
  // Years outside 0000-9999 are written with a sign and six digits: rare, left to Date.
  if (iso.length !== ISO_LENGTH || !Number.isInteger(ms)) return false;
  cachedDay = day;
  cachedDayBytes = Buffer.from(iso.slice(0, 11), 'latin1');
  return true;
}

/**
 * Writes `new Date(ms).toISOString()` into `buffer` at `at` (ASCII), with `subMsUs`'s three
 * digits after the milliseconds when it is not 0 (`.123456Z`, PostHog's own precision); returns
 * the bytes written. A time without microseconds is written as it always was, byte for byte.
 */
export function writeIsoTimestamp(buffer: Buffer, at: number, ms: number, subMsUs = 0): number {
  const written = writeIsoMs(buffer, at, ms);
  if (subMsUs === 0) return written;
  const z = at + written - 1;
  for (let i = z + 2, value = subMsUs; i >= z; i--, value = Math.floor(value / 10)) buffer[i] = 48 + (value % 10);
  buffer[z + 3] = Z;
  return written + SUB_MS_DIGITS;
}

const SUB_MS_DIGITS = 3;

/**
 * `new Date(ms).toISOString()` into `buffer` at `at`. Each day's `YYYY-MM-DDT` is made once:
 * pages come in time order, so nearly every call reuses the day of the one before.
 */
function writeIsoMs(buffer: Buffer, at: number, ms: number): number {
  if (!cacheDay(ms)) return buffer.write(new Date(ms).toISOString(), at, 'latin1');
  cachedDayBytes.copy(buffer, at);
  let inDay = ms - cachedDay * DAY_MS;
  const digits = (value: number, from: number, count: number): void => {
    for (let i = from + count - 1; i >= from; i--, value = Math.floor(value / 10)) buffer[i] = 48 + (value % 10);
  };
  const millis = inDay % 1000;
  inDay = (inDay - millis) / 1000;
  digits(Math.floor(inDay / 3600), at + 11, 2);
  buffer[at + 13] = COLON;
  digits(Math.floor(inDay / 60) % 60, at + 14, 2);
  buffer[at + 16] = COLON;
  digits(inDay % 60, at + 17, 2);
  buffer[at + 19] = DOT;
  digits(millis, at + 20, 3);
  buffer[at + 23] = Z;
  return ISO_LENGTH;
}

const isoScratch = Buffer.alloc(32);

/** The time as writeIsoTimestamp writes it (dry runs, tests). */
export function isoTimestamp(ms: number, subMsUs = 0): string {
  return isoScratch.toString('latin1', 0, writeIsoTimestamp(isoScratch, 0, ms, subMsUs));
}

export function eventJson(e: OutgoingEvent): string {
  return (
    `{"uuid":"${e.uuid}","event":${JSON.stringify(e.event)},"distinct_id":${JSON.stringify(e.distinctId)},` +
    `"timestamp":"${isoTimestamp(e.timestampMs, e.subMsUs)}","properties":${e.propertiesJson}}`
  );
}

export function encodeEvent(e: OutgoingEvent): TextEvent {
  const json = eventJson(e);
  const at = json.indexOf(TIMESTAMP_KEY) + TIMESTAMP_KEY.length;
  const end = json.indexOf('"', at);
  const text: TextEvent = { seq: e.seq, kind: e.kind, timestampMs: e.timestampMs, head: json.slice(0, at), tail: json.slice(end) };
  if (e.subMsUs) text.subMsUs = e.subMsUs;
  return text;
}

/** Follows the event's name and distinct_id, both JSON strings: found after their quotes. */
const TIMESTAMP_KEY = ',"timestamp":"';

const UUID_PREFIX = '{"uuid":"';
const UUID_CHARS = 36;

/** The uuid of an event's JSON (it comes first, see eventJson); for messages. */
export function uuidOfEventJson(json: string): string {
  return json.startsWith(UUID_PREFIX) ? json.slice(UUID_PREFIX.length, UUID_PREFIX.length + UUID_CHARS) : '(unknown uuid)';
}

function bodyPrefix(apiKey: string): string {
  return `{"api_key":${JSON.stringify(apiKey)},"historical_migration":true,"batch":[`;
}
const BODY_SUFFIX = ']}';

/** Bytes of a body around its events (key, flag, brackets). */
export function bodyOverheadBytes(apiKey: string): number {
  return Buffer.byteLength(bodyPrefix(apiKey)) + BODY_SUFFIX.length;
}

/** The events' JSON of a /batch/ body batchBody made, whose overhead is `overheadBytes`: a view, not a copy. */
export function eventsOfBody(body: Buffer, overheadBytes: number): Buffer {
  return body.subarray(overheadBytes - BODY_SUFFIX.length, body.length - BODY_SUFFIX.length);
}

/** The /batch/ body around `eventsJson`: events' JSON joined by commas, as UTF-8. */
export function batchBody(apiKey: string, eventsJson: Buffer): Buffer {
  return Buffer.concat([Buffer.from(bodyPrefix(apiKey)), eventsJson, Buffer.from(BODY_SUFFIX)]);
}
