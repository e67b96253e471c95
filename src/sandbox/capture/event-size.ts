/**
 * Whether one event is over capture's per-event limit. Capture sends each event to Kafka as a
 * message of about 1 MB at most; the event travels as a JSON string inside that message, so
 * each `"` and `\` of its text counts twice, and the message adds its own fields (uuid,
 * distinct_id, ip, token, times: about 500 bytes).
 */
import type { ObjectScan } from './json-scan.js';

const ENVELOPE_BYTES = 512;

/** Whether an event of at most `rawBytes` bytes of text is under the limit whatever its text. */
export function underLimitAtAnySize(rawBytes: number, maxEventBytes: number): boolean {
  return rawBytes * 2 + ENVELOPE_BYTES <= maxEventBytes;
}

export function eventOverLimit(bytes: Uint8Array, span: ObjectScan, maxEventBytes: number): boolean {
  const raw = span.end - span.start;
  // Most events are far below the limit even if every byte had to be escaped.
  if (underLimitAtAnySize(raw, maxEventBytes)) return false;
  let escaped = 0;
  for (let i = span.start; i < span.end; i++) if (bytes[i] === 0x22 || bytes[i] === 0x5c) escaped++;
  return raw + escaped + ENVELOPE_BYTES > maxEventBytes;
}

/**
 * The fewest bytes of JSON text that parse to `value`: every UTF-16 unit of a string or key
 * takes at least a byte of text (escapes and UTF-8 take more), a number at least one, and the
 * punctuation is counted. `value` came from JSON.parse (nesting already bounded).
 */
export function jsonBytesAtLeast(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return value === false ? 5 : typeof value === 'number' ? 1 : 4;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const item of value) bytes += jsonBytesAtLeast(item) + 1;
    return value.length === 0 ? bytes : bytes - 1;
  }
  let members = 0;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    bytes += key.length + 4 + jsonBytesAtLeast(record[key]);
    members++;
  }
  return members === 0 ? bytes : bytes - 1;
}

/**
 * True when no event of a body of `bodyBytes` bytes can be over the limit, without finding
 * where each event's text is: an event's text is at most the body less the least text every
 * other event needs. For bodies of many events of ordinary size this settles it, at a small
 * part of the cost of the byte-by-byte scan.
 */
export function noEventOverLimit(bodyBytes: number, events: readonly unknown[], maxEventBytes: number): boolean {
  let total = 0;
  let largest = 0;
  for (const event of events) {
    const least = jsonBytesAtLeast(event);
    total += least;
    if (least > largest) largest = least;
  }
  return underLimitAtAnySize(bodyBytes - total + largest, maxEventBytes);
}
