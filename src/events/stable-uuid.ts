/**
 * Stable event uuids. PostHog collapses two stored events only when day, event name,
 * distinct_id and uuid are all equal, so a re-sent or re-exported event must carry the same uuid.
 *
 * Rule (documented in docs/staging-rules.md): a uuid present in the source is kept (normalised to
 * lowercase hyphenated form). Otherwise the uuid has the UUIDv7 layout: the first 48 bits are
 * the event's timestamp in Unix milliseconds, then the version (7), the variant (10), and the
 * remaining 74 bits are the first bits of SHA-1("<MIGRATE_NAMESPACE>\n<identity>"), where
 * identity is the canonical JSON (keys sorted) of the source record as read, before mapping.
 * Time-ordered uuids keep the staging file's uuid index append-mostly, which is what makes
 * staging fast on large files; PostHog itself makes UUIDv7s.
 */
import { hash } from 'node:crypto';

/** Mixed into every derived uuid. Fixed forever: changing it would duplicate data. */
export const MIGRATE_NAMESPACE = '6f1c7a52-3d0e-4c8b-9a57-0e2f4b8d9c31';

const HEX32 = /^[0-9a-fA-F]{32}$/;

function hyphenate(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** 16 bytes as the lowercase hyphenated text form. */
export function uuidText(bytes: Uint8Array): string {
  return hyphenate(Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex'));
}

/**
 * A normalised uuid (see normaliseUuid) as its 16 bytes, the form the staging file stores: 20
 * bytes fewer per row than the text, twice (the table and its unique index).
 */
export function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replaceAll('-', ''), 'hex');
}

/**
 * The uuid derived from a source record's identity text and its timestamp (Unix ms), as bytes.
 * Nibbles: 12 of time, '7', hash nibbles 0-2, the variant (8 + the low two bits of hash nibble
 * 3), hash nibbles 4-18. Built from the digest's bytes directly: the hex round trip it replaces
 * cost more than the hash itself.
 */
export function deriveUuidBytes(identity: string, timestampMs: number): Buffer {
  // 'binary' (latin1) gives the digest as a one-byte string: the cheapest output form node:crypto has.
  const h = hash('sha1', `${MIGRATE_NAMESPACE}\n${identity}`, 'binary');
  const out = Buffer.allocUnsafe(16);
  out.writeUIntBE(Math.max(0, Math.floor(timestampMs)) % 2 ** 48, 0, 6);
  const h0 = h.charCodeAt(0);
  const h1 = h.charCodeAt(1);
  out[6] = 0x70 | (h0 >> 4);
  out[7] = ((h0 & 15) << 4) | (h1 >> 4);
  out[8] = ((8 | (h1 & 3)) << 4) | (h.charCodeAt(2) >> 4);
  for (let k = 9; k < 16; k++) out[k] = ((h.charCodeAt(k - 7) & 15) << 4) | (h.charCodeAt(k - 6) >> 4);
  return out;
}

/**
 * A key of a row as its source wrote it, for rows whose instant a time-zone option decided: the
 * same row read with another zone gets another derived uuid (other time bits, same hash bits)
 * but the same key. 16 bytes: the time as written, read as if UTC (`wallMs`, 48 bits), then the
 * uuid's 80 bits after its time (version, variant and the identity's hash). The time as written
 * keeps apart rows whose identity leaves the time out (Mixpanel's `$insert_id`), and puts keys in
 * about the order of the file, so their index grows at its end as the uuid index does (random
 * keys made staging such rows two and a half times slower).
 */
export function zonedRowKey(uuid: Uint8Array, wallMs: number): Buffer {
  const out = Buffer.allocUnsafe(16);
  out.writeUIntBE(Math.min(Math.max(0, Math.floor(wallMs)), 2 ** 48 - 1), 0, 6);
  out.set(uuid.subarray(6, 16), 6);
  return out;
}

/** The derived uuid as text; see deriveUuidBytes. */
export function deriveUuid(identity: string, timestampMs: number): string {
  return uuidText(deriveUuidBytes(identity, timestampMs));
}

/**
 * Normalises a uuid given in the source: hyphenated, 32 hex digits, `{...}` or `urn:uuid:...`
 * are accepted (PostHog's parser accepts them too); the nil and max uuids are refused because
 * every event carrying one would collapse into one. Returns undefined when not a usable uuid.
 */
export function normaliseUuid(text: string): string | undefined {
  let body = text.trim();
  if (body.toLowerCase().startsWith('urn:uuid:')) body = body.slice(9);
  if (body.startsWith('{') && body.endsWith('}')) body = body.slice(1, -1);
  const hex = body.length === 36 && body[8] === '-' && body[13] === '-' && body[18] === '-' && body[23] === '-' ? body.replaceAll('-', '') : body;
  if (!HEX32.test(hex)) return undefined;
  const lower = hex.toLowerCase();
  if (lower === '0'.repeat(32) || lower === 'f'.repeat(32)) return undefined;
  return hyphenate(lower);
}
