/**
 * Staged rows as the JSON PostHog's /batch/ takes. The stored properties text is spliced in
 * unchanged, so a re-sent event is byte-for-byte the same and PostHog's dedup key
 * (day, event, distinct_id, uuid) collapses it.
 *
 * No `sent_at` is sent: the server would shift every timestamp by (its clock - sent_at), and a
 * chunk retried later would land shifted. Timestamps are absolute UTC and used as given.
 */

/** One staged row to send, as read from the staging file. */
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

/** An event ready to go into a body. */
export interface EncodedEvent {
  seq: number;
  uuid: string;
  kind: number;
  timestampMs: number;
  json: string;
  /** UTF-8 length of `json`. */
  bytes: number;
}

export function encodeEvent(e: OutgoingEvent): EncodedEvent {
  const json =
    `{"uuid":"${e.uuid}","event":${JSON.stringify(e.event)},"distinct_id":${JSON.stringify(e.distinctId)},` +
    `"timestamp":"${new Date(e.timestampMs).toISOString()}","properties":${e.propertiesJson}}`;
  return { seq: e.seq, uuid: e.uuid, kind: e.kind, timestampMs: e.timestampMs, json, bytes: Buffer.byteLength(json) };
}

function bodyPrefix(apiKey: string): string {
  return `{"api_key":${JSON.stringify(apiKey)},"historical_migration":true,"batch":[`;
}
const BODY_SUFFIX = ']}';

/** Bytes of a body around its events (key, flag, brackets). */
export function bodyOverheadBytes(apiKey: string): number {
  return Buffer.byteLength(bodyPrefix(apiKey)) + BODY_SUFFIX.length;
}

/** The /batch/ body for these events. */
export function batchBody(apiKey: string, events: readonly EncodedEvent[]): string {
  let out = bodyPrefix(apiKey);
  for (let i = 0; i < events.length; i++) out += (i === 0 ? '' : ',') + events[i]!.json;
  return out + BODY_SUFFIX;
}
