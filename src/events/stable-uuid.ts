/**
 * Stable event uuids. PostHog collapses two stored events only when day, event name,
 * distinct_id and uuid are all equal, so a re-sent or re-exported event must carry the same uuid.
 *
 * Rule (documented in the README): a uuid present in the source is kept (normalised to
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
const VARIANT_NIBBLE = '89ab';

function hyphenate(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The uuid derived from a source record's identity text and its timestamp (Unix ms). */
export function deriveUuid(identity: string, timestampMs: number): string {
  const digest = hash('sha1', `${MIGRATE_NAMESPACE}\n${identity}`, 'hex');
  const time = Math.max(0, Math.floor(timestampMs)).toString(16).padStart(12, '0').slice(-12);
  // 12 hex of time, '7', 3 hex of hash, variant nibble from the hash, 15 more hex of hash.
  const variant = VARIANT_NIBBLE[parseInt(digest[3]!, 16) & 3]!;
  return hyphenate(`${time}7${digest.slice(0, 3)}${variant}${digest.slice(4, 19)}`);
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
  const hex = body.length === 36 && body[8] === '-' && body[13] === '-' && body[18] === '-' && body[23] === '-'
    ? body.replaceAll('-', '')
    : body;
  if (!HEX32.test(hex)) return undefined;
  const lower = hex.toLowerCase();
  if (lower === '0'.repeat(32) || lower === 'f'.repeat(32)) return undefined;
  return hyphenate(lower);
}
