/**
 * Uuids the staging side makes for rows no source wrote: the `$identify` of an identity link
 * (stable for its two ids whatever its time), and session ids PostHog's sessions table keeps
 * (UUIDv7, filed by the time in their first 48 bits). Pure; the namespace is the one every
 * derived uuid mixes in (stable-uuid.ts), so these never collide with event uuids by chance.
 */
import { hash } from 'node:crypto';
import { deriveUuidBytes, MIGRATE_NAMESPACE, uuidText } from './stable-uuid.js';

/**
 * A name-based uuid for a row whose identity must not depend on its time: an identity link keeps
 * its uuid when an earlier meeting of its two ids moves its timestamp. RFC 9562 version 8 (its
 * layout is ours to choose): 48 zero bits, then the version and variant around 74 bits of
 * SHA-1 of the namespace and `identity`. The zero prefix keeps these rows together at the start of
 * the staging file's uuid index: a hundred thousand links written at random places in it dirtied
 * most of its pages, and the commits writing them cost more than everything else the pass did.
 */
export function nameUuidBytes(identity: string): Buffer {
  const digest = hash('sha1', `${MIGRATE_NAMESPACE}\nname\n${identity}`, 'buffer');
  const out = Buffer.alloc(16);
  digest.copy(out, 6, 0, 10);
  out[6] = 0x80 | (out[6]! & 0x0f);
  out[8] = 0x80 | (out[8]! & 0x3f);
  return out;
}

/**
 * A session id PostHog's sessions table keeps: a UUIDv7 whose time is the session's start (UTC
 * ms) and whose other bits come from `identity` (who, and which session), so every event of one
 * session gets the same id, on every run, and two sessions that start at the same millisecond
 * for two people get two ids.
 */
export function sessionUuid(startMs: number, identity: string): string {
  return uuidText(deriveUuidBytes(`session\n${identity}`, startMs));
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** True for a UUIDv7 in its hyphenated form: the only session ids PostHog's sessions table keeps. */
export function isUuidV7(value: unknown): boolean {
  return typeof value === 'string' && value.length === 36 && value[14] === '7' && UUID_V7.test(value);
}
