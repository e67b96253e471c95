/**
 * GA4's record fields (`device`, `geo`, `app_info`, the traffic sources) as PostHog properties.
 * Pure tables and functions; the docs' GA4 table is this file. A mapped field's placeholder
 * values ("(not set)", and "(direct)" / "(none)" for traffic sources) mean "no value" in GA4
 * and are left out; whatever is left of each record is kept under `ga4_<record>`.
 */
import { setOwnProperty } from '../../json/own-property.js';
import { isMissing, isObject, setIfAbsent, type Properties } from './vendor-values.js';

/** `<record>.<field>` (dots go deeper) and its PostHog name; the first of two for one name wins. */
export const GA4_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['device.web_info.browser', '$browser'],
  ['device.web_info.browser_version', '$browser_version'],
  ['device.browser', '$browser'],
  ['device.browser_version', '$browser_version'],
  ['device.operating_system', '$os'],
  ['device.operating_system_version', '$os_version'],
  ['device.mobile_brand_name', '$device_manufacturer'],
  ['device.mobile_model_name', '$device_model'],
  ['geo.country', '$geoip_country_name'],
  ['geo.region', '$geoip_subdivision_1_name'],
  ['geo.city', '$geoip_city_name'],
  ['geo.continent', '$geoip_continent_name'],
  ['app_info.version', '$app_version'],
  ['app_info.id', '$app_namespace'],
  ['collected_traffic_source.manual_source', 'utm_source'],
  ['collected_traffic_source.manual_medium', 'utm_medium'],
  ['collected_traffic_source.manual_campaign_name', 'utm_campaign'],
  ['collected_traffic_source.manual_term', 'utm_term'],
  ['collected_traffic_source.manual_content', 'utm_content'],
  ['collected_traffic_source.gclid', 'gclid'],
  ['collected_traffic_source.dclid', 'dclid'],
  ['device.web_info.hostname', '$host'],
];

/** The user's first-touch source (`traffic_source`) as PostHog's first-touch person properties. */
export const GA4_INITIAL_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['source', '$initial_utm_source'],
  ['medium', '$initial_utm_medium'],
  ['name', '$initial_utm_campaign'],
];

/** Records whose unmapped fields are kept under `ga4_<record>`. */
export const GA4_RECORDS = ['device', 'geo', 'app_info', 'collected_traffic_source'] as const;

const PLACEHOLDERS = new Set(['(not set)', '(direct)', '(none)']);

/** GA4's names where PostHog's SDKs write another for the same thing, so breakdowns line up. */
export const GA4_VALUE_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  $os: { Macintosh: 'Mac OS X' },
  $browser: { Edge: 'Microsoft Edge' },
};

/** GA4's device categories as PostHog's `$device_type` values. */
const DEVICE_TYPES: Readonly<Record<string, string>> = { desktop: 'Desktop', mobile: 'Mobile', tablet: 'Tablet', 'smart tv': 'TV' };

function valueAt(record: Properties, path: string): unknown {
  let value: unknown = record;
  for (const part of path.split('.')) value = isObject(value) ? value[part] : undefined;
  return value;
}

function isPlaceholder(value: unknown): boolean {
  return typeof value === 'string' && PLACEHOLDERS.has(value);
}

function deviceType(category: unknown): string | undefined {
  if (typeof category !== 'string' || category === '' || isPlaceholder(category)) return undefined;
  return DEVICE_TYPES[category.toLowerCase()] ?? category[0]!.toUpperCase() + category.slice(1);
}

/** What is left of a record once its mapped fields are taken out (nested records likewise), without nulls. */
function leftover(value: unknown, prefix: string, mapped: ReadonlySet<string>): unknown {
  if (!isObject(value)) return value;
  const out: Properties = {};
  for (const [key, inner] of Object.entries(value)) {
    const path = `${prefix}.${key}`;
    if (mapped.has(path) || inner === null || inner === undefined) continue;
    const rest = leftover(inner, path, mapped);
    if (!isObject(rest) || Object.keys(rest).length > 0) setOwnProperty(out, key, rest);
  }
  return out;
}

const MAPPED_PATHS: ReadonlySet<string> = new Set([...GA4_FIELDS.map(([path]) => path), 'device.category', 'device.language']);

/** The record fields of one event, set where its parameters have not set the same name. */
export function addGa4Fields(out: Properties, record: Properties, web: boolean): void {
  for (const [path, name] of GA4_FIELDS) {
    const value = valueAt(record, path);
    if (!isPlaceholder(value)) setIfAbsent(out, name, (typeof value === 'string' && GA4_VALUE_NAMES[name]?.[value]) || value);
  }
  setIfAbsent(out, '$device_type', deviceType(valueAt(record, 'device.category')));
  const language = valueAt(record, 'device.language');
  if (!isPlaceholder(language)) setIfAbsent(out, web ? '$browser_language' : '$locale', language);
  for (const name of GA4_RECORDS) setIfAbsent(out, `ga4_${name}`, leftover(record[name], name, MAPPED_PATHS));
}

/** `traffic_source` (how the user first arrived) as `$set_once` entries. */
export function ga4InitialSource(record: Properties): Properties {
  const out: Properties = {};
  const source = record.traffic_source;
  if (!isObject(source)) return out;
  for (const [field, name] of GA4_INITIAL_FIELDS) {
    if (!isMissing(source[field]) && !isPlaceholder(source[field])) out[name] = source[field];
  }
  return out;
}
