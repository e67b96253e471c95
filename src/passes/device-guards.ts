/**
 * Which devices an identity link may be staged for. A link cannot be undone in PostHog (the
 * device's person is merged into the user's for good), so the guards decide before anything is
 * sent: a placeholder device id is never linked; a device seen with several users is linked to
 * the first one only (PostHog would refuse the others, or worse, fold them into the first); a
 * device seen with more users than the limit (a kiosk, a test rig, a broken SDK) is not linked
 * at all. Pure.
 */
import { isIllegalDistinctId } from '../events/illegal-distinct-id.js';
import type { DeviceRecord, DeviceUsers } from '../staging/identity-store.js';

/** Default of --max-users-per-device. */
export const DEFAULT_MAX_USERS_PER_DEVICE = 5;

/** Mixpanel's anonymous ids are `$device:<device id>`; the guards look at the device id itself. */
const MIXPANEL_DEVICE_PREFIX = '$device:';

const PLACEHOLDER_WORDS = new Set(['unknown', 'null', 'nil', 'none', 'undefined', 'n/a', 'na', '(null)', 'default', 'device_id', 'deviceid']);

/** True for a device id that stands for no device: empty, all zeros, `unknown`, or an id PostHog refuses to merge on. */
export function isPlaceholderDevice(device: string): boolean {
  const id = device.startsWith(MIXPANEL_DEVICE_PREFIX) ? device.slice(MIXPANEL_DEVICE_PREFIX.length) : device;
  const trimmed = id.trim();
  if (/^[0-]*$/.test(trimmed)) return true;
  return PLACEHOLDER_WORDS.has(trimmed.toLowerCase()) || isIllegalDistinctId(id) || isIllegalDistinctId(device);
}

/** What to do with a device, given the users it was seen with. */
export function decideDevice(device: string, seen: DeviceUsers, maxUsersPerDevice: number): DeviceRecord['decision'] {
  if (seen.first === undefined) return 'gone';
  if (isPlaceholderDevice(device)) return 'placeholder';
  if (seen.users > maxUsersPerDevice) return 'kiosk';
  if (isIllegalDistinctId(seen.first.user)) return 'illegal_user';
  return 'linked';
}
