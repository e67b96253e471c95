/**
 * The staged event: exactly what is sent to PostHog, nothing derived later. Kinds keep person
 * and group updates apart from ordinary events, so each kind is sent in its turn (see
 * delivery/send-order.ts) and counted alone. A re-assertion (kind 3) is a users file's `$set`
 * sent again after the events, for a person whose events carry `$set`s of their own; import
 * stages them (staging/reassertions.ts).
 */

export const EventKind = { event: 0, person: 1, group: 2, reassert: 3 } as const;
export type EventKindValue = (typeof EventKind)[keyof typeof EventKind];

export interface StagedEvent {
  /** The uuid's 16 bytes (as stored); part of PostHog's dedup key. Text form: uuidText. */
  uuid: Uint8Array;
  kind: EventKindValue;
  /** Final event name, after the name map. */
  event: string;
  distinctId: string;
  /** UTC epoch milliseconds. */
  timestampMs: number;
  /** Microseconds past `timestampMs` (0-999), when the source had them; absent means 0. */
  subMsUs?: number;
  /** Properties as the JSON object text that is sent. */
  propertiesJson: string;
}

/** PostHog's guidance: historical events at least 48 hours old. Newer ones get a warning. */
export const RECENT_WINDOW_MS = 48 * 60 * 60 * 1000;
