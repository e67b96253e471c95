/**
 * Whether one event is over capture's per-event limit. Capture sends each event to Kafka as a
 * message of about 1 MB at most; the event travels as a JSON string inside that message, so
 * each `"` and `\` of its text counts twice, and the message adds its own fields (uuid,
 * distinct_id, ip, token, times: about 500 bytes).
 */
import type { ObjectScan } from './json-scan.js';

const ENVELOPE_BYTES = 512;

export function eventOverLimit(bytes: Uint8Array, span: ObjectScan, maxEventBytes: number): boolean {
  const raw = span.end - span.start;
  // Most events are far below the limit even if every byte had to be escaped.
  if (raw * 2 + ENVELOPE_BYTES <= maxEventBytes) return false;
  let escaped = 0;
  for (let i = span.start; i < span.end; i++) if (bytes[i] === 0x22 || bytes[i] === 0x5c) escaped++;
  return raw + escaped + ENVELOPE_BYTES > maxEventBytes;
}
