/**
 * The (device, user) pair an event of an Amplitude or Mixpanel export gives the identity links,
 * worked out where the event is built (on the worker threads, from the properties it is about
 * to stage), so the writer records it with the row and the links pass never reads the rows
 * again. It must say exactly what the pass's SQL over the staged properties would say (see
 * staging/identity-store.ts): for values whose SQL text JS could spell otherwise (numbers that
 * are not safe integers, booleans, objects, text with NUL or lone surrogates), it says "ask
 * SQL", and the writer draws that row's pair with the same SQL the pass uses.
 */
import { EventKind, type EventKindValue } from './staged-event.js';

export type LinkFormat = 'amplitude' | 'mixpanel';

/** Where each format's events say who and on which device (see staging/identity-store.ts). */
const PAIR_KEYS: Readonly<Record<LinkFormat, { user: string; device: string; devicePrefix: string }>> = {
  amplitude: { user: '$amplitude_user_id', device: '$amplitude_device_id', devicePrefix: '' },
  mixpanel: { user: '$user_id', device: '$device_id', devicePrefix: '$device:' },
};

/** The row's pair must be drawn by SQL (a value whose text SQL might spell otherwise). */
export const PAIR_BY_SQL = 0;

/** `device` NUL `user`: neither holds a NUL (such values go to SQL). */
export type PairKey = string;

export function pairKey(device: string, user: string): PairKey {
  return `${device}\u0000${user}`;
}

export function splitPairKey(key: PairKey): { device: string; user: string } {
  const at = key.indexOf('\u0000');
  return { device: key.slice(0, at), user: key.slice(at + 1) };
}

const UNSURE = /[\u0000\ud800-\udfff]/;
const NONE = 1;

/** A property value as SQL's `CAST(v ->> key AS TEXT)` gives it: NONE for null or absent, PAIR_BY_SQL when unsure. */
function sqlText(value: unknown): string | typeof NONE | typeof PAIR_BY_SQL {
  if (value === undefined || value === null) return NONE;
  if (typeof value === 'string') return UNSURE.test(value) ? PAIR_BY_SQL : value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return PAIR_BY_SQL;
}

/**
 * The pair of one event: undefined when it gives none (not an event, no user, a user other than
 * its distinct_id, no device), PAIR_BY_SQL when SQL must say.
 */
export function identityPair(format: LinkFormat, kind: EventKindValue, distinctId: string, properties: Record<string, unknown>): PairKey | typeof PAIR_BY_SQL | undefined {
  if (kind !== EventKind.event) return undefined;
  const keys = PAIR_KEYS[format];
  const user = sqlText(properties[keys.user]);
  if (user === NONE) return undefined;
  if (user === PAIR_BY_SQL || UNSURE.test(distinctId)) return PAIR_BY_SQL;
  if (user !== distinctId) return undefined;
  const device = sqlText(properties[keys.device]);
  if (device === NONE) return undefined;
  if (device === PAIR_BY_SQL) return PAIR_BY_SQL;
  return pairKey(keys.devicePrefix + device, user);
}

export function isLinkFormat(format: string): format is LinkFormat {
  return Object.hasOwn(PAIR_KEYS, format);
}
