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
  propertiesJson: string;
}

/** An event ready to go into a body: its JSON and what chunking and the checkpoint need. */
export interface EncodedEvent {
  seq: number;
  kind: number;
  timestampMs: number;
  json: string;
}

export function eventJson(e: OutgoingEvent): string {
  return (
    `{"uuid":"${e.uuid}","event":${JSON.stringify(e.event)},"distinct_id":${JSON.stringify(e.distinctId)},` +
    `"timestamp":"${new Date(e.timestampMs).toISOString()}","properties":${e.propertiesJson}}`
  );
}

export function encodeEvent(e: OutgoingEvent): EncodedEvent {
  return { seq: e.seq, kind: e.kind, timestampMs: e.timestampMs, json: eventJson(e) };
}

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

/** The /batch/ body around `eventsJson`: events' JSON joined by commas, as UTF-8. */
export function batchBody(apiKey: string, eventsJson: Buffer): Buffer {
  return Buffer.concat([Buffer.from(bodyPrefix(apiKey)), eventsJson, Buffer.from(BODY_SUFFIX)]);
}
