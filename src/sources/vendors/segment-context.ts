/**
 * Segment's `context` object as PostHog properties, following the names PostHog's own SDKs and
 * its Segment integration use. Fields with a PostHog name are moved; whatever is left of each
 * context entry is kept under `segment_<entry>` (`segment_library`, `segment_location`...), so
 * nothing in the call is silently lost. Pure; the docs' Segment table is this file.
 */
import { isMissing, isObject, setIfAbsent, type Properties } from './vendor-values.js';

/** `context.<entry>.<field>` (or `context.<field>` when entry is '') and its PostHog name. */
export const SEGMENT_CONTEXT_FIELDS: ReadonlyArray<readonly [entry: string, field: string, posthog: string]> = [
  ['', 'ip', '$ip'],
  ['', 'userAgent', '$raw_user_agent'],
  ['', 'timezone', '$timezone'],
  ['page', 'url', '$current_url'],
  ['page', 'path', '$pathname'],
  ['page', 'referrer', '$referrer'],
  ['page', 'title', 'title'],
  ['os', 'name', '$os'],
  ['os', 'version', '$os_version'],
  ['app', 'name', '$app_name'],
  ['app', 'version', '$app_version'],
  ['app', 'build', '$app_build'],
  ['app', 'namespace', '$app_namespace'],
  ['device', 'manufacturer', '$device_manufacturer'],
  ['device', 'model', '$device_model'],
  ['device', 'name', '$device_name'],
  ['screen', 'width', '$screen_width'],
  ['screen', 'height', '$screen_height'],
  ['network', 'wifi', '$network_wifi'],
  ['network', 'cellular', '$network_cellular'],
  ['network', 'carrier', '$network_carrier'],
  ['network', 'bluetooth', '$network_bluetooth'],
  ['campaign', 'name', 'utm_campaign'],
  ['campaign', 'source', 'utm_source'],
  ['campaign', 'medium', 'utm_medium'],
  ['campaign', 'term', 'utm_term'],
  ['campaign', 'content', 'utm_content'],
];

/** Scalar context fields read here (locale, groupId) or above; they leave no `segment_` copy. */
const CONSUMED_SCALARS = new Set(['ip', 'userAgent', 'timezone', 'locale', 'groupId']);

/** Segment's `context.device.type` names the platform; PostHog's `$device_type` the form factor. */
const MOBILE_PLATFORMS = new Set(['ios', 'android']);

/** A web call: analytics.js sets the page and the user agent; the mobile libraries set neither. */
function isWeb(context: Properties): boolean {
  return isObject(context.page) || typeof context.userAgent === 'string';
}

/**
 * Moves the mapped fields of `context` into `out` (a property already there wins), then keeps
 * what is left of each entry as `segment_<entry>`. `groupType` names the group of `context.groupId`.
 */
export function addSegmentContext(out: Properties, context: Properties, groupType: string): void {
  const used = new Map<string, Set<string>>();
  for (const [entry, field, posthog] of SEGMENT_CONTEXT_FIELDS) {
    const holder = entry === '' ? context : context[entry];
    if (!isObject(holder) || isMissing(holder[field])) continue;
    setIfAbsent(out, posthog, holder[field]);
    if (entry !== '') used.set(entry, (used.get(entry) ?? new Set()).add(field));
  }
  // The query string is part of the page URL: with the URL taken, it is not kept twice.
  if (used.get('page')?.has('url')) used.get('page')!.add('search');
  setIfAbsent(out, isWeb(context) ? '$browser_language' : '$locale', context.locale);
  const device = context.device;
  if (isObject(device) && MOBILE_PLATFORMS.has(String(device.type).toLowerCase())) setIfAbsent(out, '$device_type', 'Mobile');
  if (typeof context.groupId === 'string' || typeof context.groupId === 'number') setIfAbsent(out, '$groups', { [groupType]: String(context.groupId) });
  for (const [entry, value] of Object.entries(context)) {
    if (CONSUMED_SCALARS.has(entry)) continue;
    const fields = used.get(entry);
    const rest = fields && isObject(value) ? Object.fromEntries(Object.entries(value).filter(([key]) => !fields.has(key))) : value;
    setIfAbsent(out, `segment_${entry}`, rest);
  }
}
