/**
 * PostHog's GeoIP step, with a made-up atlas. The event's `$ip` is filled from the address
 * that sent the request when it is missing or empty (ingestion does that for every event);
 * then, unless `$geoip_disable` is set, the address is looked up and the location goes on the
 * event as `$geoip_*`, to the person's `$set` as `$geoip_*` and to `$set_once` as
 * `$initial_geoip_*`. Keys the lookup has no value for go to the person as null (and a null in
 * `$set_once` stays for good), as PostHog's transformation does.
 *
 * The sandbox's atlas answers every valid address with the same place, "Sandbox City" in
 * country "ZZ" (a code no country has), at a latitude and longitude derived from the address,
 * so a rehearsal shows plainly which events were located by the machine that sent them.
 */
import { isIP } from 'node:net';

type Obj = Record<string, unknown>;

/** Every key PostHog's GeoIP step writes (prefixed `$geoip_` / `$initial_geoip_`). */
export const GEOIP_KEYS = [
  'city_name',
  'city_confidence',
  'subdivision_2_name',
  'subdivision_2_code',
  'subdivision_1_name',
  'subdivision_1_code',
  'country_name',
  'country_code',
  'continent_name',
  'continent_code',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius',
  'time_zone',
] as const;

export const SANDBOX_CITY = 'Sandbox City';
export const SANDBOX_COUNTRY_CODE = 'ZZ';

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The sandbox atlas: a place for every valid IP address, none for anything else. */
export function sandboxLocation(ip: string): Obj | undefined {
  if (isIP(ip) === 0) return undefined;
  const h = hash(ip);
  return {
    city_name: SANDBOX_CITY,
    country_name: 'Sandbox',
    country_code: SANDBOX_COUNTRY_CODE,
    continent_name: 'Sandbox',
    continent_code: SANDBOX_COUNTRY_CODE,
    latitude: Math.round(((h % 12000) / 100 - 60) * 100) / 100,
    longitude: Math.round((((h >>> 8) % 36000) / 100 - 180) * 100) / 100,
    accuracy_radius: 1000,
    time_zone: 'UTC',
  };
}

const truthy = (v: unknown): boolean => v !== undefined && v !== null && v !== false && v !== 0 && v !== '';
const objectOr = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? { ...(v as Obj) } : {});

/** Applies the `$ip` fill and the GeoIP step to an event's properties, in place. */
export function applyGeoip(properties: Obj, requestIp: string | undefined): void {
  if (!truthy(properties.$ip) && requestIp) properties.$ip = requestIp;
  if (truthy(properties.$geoip_disable) || typeof properties.$ip !== 'string' || properties.$ip === '') return;
  const location = sandboxLocation(properties.$ip);
  if (location === undefined) return;
  const set = objectOr(properties.$set);
  const setOnce = objectOr(properties.$set_once);
  for (const key of GEOIP_KEYS) {
    set[`$geoip_${key}`] = null;
    setOnce[`$initial_geoip_${key}`] = null;
  }
  for (const [key, value] of Object.entries(location)) {
    properties[`$geoip_${key}`] = value;
    set[`$geoip_${key}`] = value;
    setOnce[`$initial_geoip_${key}`] = value;
  }
  properties.$set = set;
  properties.$set_once = setOnce;
}
