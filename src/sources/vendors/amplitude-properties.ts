/**
 * Amplitude's event fields as PostHog properties, following PostHog's own Amplitude importer.
 * Pure tables and functions; the README's Amplitude table is this file.
 */
import { setOwnProperty } from '../../json/own-property.js';
import { isMissing, renameIfAbsent, setIfAbsent, type Properties } from './vendor-values.js';

/** Event properties with a PostHog name. The first of two sources for one name wins. */
export const AMPLITUDE_PAGE_PROPERTIES: ReadonlyArray<readonly [string, string]> = [
  ['[Amplitude] Page Location', '$current_url'], // the full URL, query string included
  ['[Amplitude] Page URL', '$current_url'], // the URL without its query string
  ['[Amplitude] Page Domain', '$host'],
  ['[Amplitude] Page Path', '$pathname'],
  ['[Amplitude] Page Title', 'title'],
  ['[Amplitude] Viewport Height', '$viewport_height'],
  ['[Amplitude] Viewport Width', '$viewport_width'],
  ['referrer', '$referrer'],
  ['referring_domain', '$referring_domain'],
];

/** Top-level fields kept as properties, whatever the platform. */
export const AMPLITUDE_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['user_id', '$amplitude_user_id'],
  ['device_id', '$amplitude_device_id'],
  ['device_id', '$device_id'],
  ['event_id', '$amplitude_event_id'],
  ['country', '$geoip_country_name'],
  ['region', '$geoip_subdivision_1_name'],
  ['city', '$geoip_city_name'],
  ['ip_address', '$ip'],
  ['version_name', '$app_version'],
];

/** On the web Amplitude's `os_name` is the browser (as PostHog's importer reads it). */
export const AMPLITUDE_WEB_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['os_name', '$browser'],
  ['os_version', '$browser_version'],
  ['device_type', '$os'],
];

/** On iOS, Android and other apps `os_name` is the operating system. */
export const AMPLITUDE_APP_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['os_name', '$os'],
  ['os_version', '$os_version'],
  ['device_model', '$device_model'],
  ['device_manufacturer', '$device_manufacturer'],
  ['device_brand', '$device_manufacturer'],
];

/** User properties PostHog keeps as first-touch values (`$set_once`); "EMPTY" means none. */
export const AMPLITUDE_SET_ONCE: Readonly<Record<string, string>> = {
  initial_referrer: '$initial_referrer',
  initial_referring_domain: '$initial_referring_domain',
  initial_utm_source: '$initial_utm_source',
  initial_utm_medium: '$initial_utm_medium',
  initial_utm_campaign: '$initial_utm_campaign',
  initial_utm_content: '$initial_utm_content',
  initial_utm_term: '$initial_utm_term',
};

const DESKTOP = new Set(['windows', 'linux', 'mac os x', 'macos', 'mac os', 'chrome os']);
const MOBILE = new Set(['ios', 'android', 'ipados']);

function deviceType(record: Properties, web: boolean): string | undefined {
  const system = String((web ? record.device_type : record.platform) ?? '').toLowerCase();
  if (DESKTOP.has(system)) return 'Desktop';
  if (MOBILE.has(system)) return 'Mobile';
  return undefined;
}

/** `user_properties` as `$set`, with first-touch ones as `$set_once`. */
function personProperties(user: Properties | undefined): { set?: Properties; setOnce?: Properties } {
  if (user === undefined) return {};
  const set: Properties = {};
  const setOnce: Properties = {};
  for (const [key, value] of Object.entries(user)) {
    const once = Object.hasOwn(AMPLITUDE_SET_ONCE, key) ? AMPLITUDE_SET_ONCE[key] : undefined;
    if (once === undefined) setOwnProperty(set, key, value);
    else if (value !== 'EMPTY' && !isMissing(value)) setOnce[once] = value;
  }
  return { set: Object.keys(set).length > 0 ? set : undefined, setOnce: Object.keys(setOnce).length > 0 ? setOnce : undefined };
}

/** What the mapping worked out from other fields before the properties are put together. */
export interface AmplitudeDerived {
  /** `$groups`, one key per type (amplitude-groups.ts). */
  groups?: Properties;
  /** The UUIDv7 session id (amplitude-session.ts). */
  sessionId?: string;
}

/**
 * The properties of one Amplitude event: its `event_properties` (page fields renamed), then the
 * top-level fields of the tables above, set only where the event has no property of that name.
 */
export function amplitudeProperties(record: Properties, eventProperties: Properties | undefined, userProperties: Properties | undefined, derived: AmplitudeDerived = {}): Properties {
  const out: Properties = { ...eventProperties };
  for (const [from, to] of AMPLITUDE_PAGE_PROPERTIES) renameIfAbsent(out, from, to);
  const web = String(record.platform ?? '').toLowerCase() === 'web';
  for (const [from, to] of [...AMPLITUDE_FIELDS, ...(web ? AMPLITUDE_WEB_FIELDS : AMPLITUDE_APP_FIELDS)]) setIfAbsent(out, to, record[from]);
  if (typeof record.session_id === 'number' && record.session_id > 0) setIfAbsent(out, '$amplitude_session_id', record.session_id);
  setIfAbsent(out, '$session_id', derived.sessionId);
  setIfAbsent(out, '$device_type', deviceType(record, web));
  setIfAbsent(out, '$groups', derived.groups);
  const person = personProperties(userProperties);
  setIfAbsent(out, '$set', person.set);
  setIfAbsent(out, '$set_once', person.setOnce);
  return out;
}
