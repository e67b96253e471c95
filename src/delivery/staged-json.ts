/**
 * The staged-json form of an event, as a page read gives it (src/staging/event-json-sql.ts):
 * its /batch/ JSON (see eventJson) with the uuid as 32 uppercase hex digits in place of
 * `{"uuid":"` and the hyphenated uuid, and nothing between `"timestamp":"` and the closing
 * quote. `writeStagedJson` writes the event's JSON from it: the uuid formatted, the timestamp
 * written in, the rest copied as bytes.
 */
import { encodedJson, writeIsoTimestamp, type EncodedEvent, type StagedJsonEvent } from './event-encoding.js';

const UUID_HEX = 32;
const UUID_OPEN = Buffer.from('{"uuid":"', 'latin1');
/** What the written JSON has beyond the staged bytes: `{"uuid":"`, the uuid's hyphens and the longest timestamp. */
const EXTRA_BYTES = UUID_OPEN.length + 4 + 30;
/** The key before the timestamp's value. It cannot occur inside the event's JSON strings before it, whose quotes are all escaped. */
const TIMESTAMP_KEY = Buffer.from(',"timestamp":"', 'latin1');
const UPPER_A = 0x41;
const TO_LOWER = 0x20;
const HYPHEN = 0x2d;

/** At most the bytes writeStagedJson writes for `e`. */
export function stagedJsonMaxBytes(e: StagedJsonEvent): number {
  return e.end - e.start + EXTRA_BYTES;
}

/** Writes the event's JSON into `buffer` at `at` (room for stagedJsonMaxBytes); returns the bytes written. */
export function writeStagedJson(buffer: Buffer, at: number, e: StagedJsonEvent): number {
  const json = e.json;
  let to = at + UUID_OPEN.copy(buffer, at);
  // The hex digits, lowercased, hyphenated 8-4-4-4-12.
  for (let i = 0; i < UUID_HEX; i++) {
    if (i === 8 || i === 12 || i === 16 || i === 20) buffer[to++] = HYPHEN;
    const c = json[e.start + i]!;
    buffer[to++] = c >= UPPER_A ? c | TO_LOWER : c;
  }
  const slot = json.indexOf(TIMESTAMP_KEY, e.start + UUID_HEX) + TIMESTAMP_KEY.length;
  to += json.copy(buffer, to, e.start + UUID_HEX, slot);
  to += writeIsoTimestamp(buffer, to, e.timestampMs, e.subMsUs);
  to += json.copy(buffer, to, slot, e.end);
  return to - at;
}

/** The full JSON text of an event in either form (dry runs, tests). */
export function encodedEventJson(e: EncodedEvent): string {
  if ('head' in e) return encodedJson(e);
  const buffer = Buffer.alloc(stagedJsonMaxBytes(e));
  return buffer.toString('utf8', 0, writeStagedJson(buffer, 0, e));
}
