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
 * True when no event of a body of `bodyBytes` bytes can be over the limit, without finding
 * where each event's text is: an event's text is at most the body less the least text of all
 * the rest (`leastBytes` of the body less the event's own), and the largest event needs at
 * most `largestEventLeastBytes`. For bodies of many events of ordinary size this settles it
 * at no cost: the walk that checks the parsed body counts both (json-read.ts).
 */
export function noEventOverLimit(bodyBytes: number, leastBytes: number, largestEventLeastBytes: number, maxEventBytes: number): boolean {
  return underLimitAtAnySize(bodyBytes - leastBytes + largestEventLeastBytes, maxEventBytes);
}
