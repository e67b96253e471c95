/**
 * Small pure helpers the vendor mappings share: value checks, property moves that never
 * overwrite what the source already has, URL parts, and vendor times that are UTC by contract.
 */
import { applyJsonColumns } from '../json-columns.js';
import { jsonItemMapper, type JsonItemMapper, type JsonRecordMapper } from '../json-lines.js';
import { setOwnProperty } from '../../json/own-property.js';
import type { ReaderOptions } from '../source-item.js';

export type Properties = Record<string, unknown>;

export function isObject(value: unknown): value is Properties {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** undefined, null and '' all mean "not given" in vendor exports. */
export function isMissing(value: unknown): value is undefined | null | '' {
  return value === undefined || value === null || value === '';
}

/**
 * Sets `key` to a given value, unless the properties already hold that key (theirs wins).
 * Missing values and empty objects (an export's `"set": {}`) are not set.
 */
export function setIfAbsent(properties: Properties, key: string, value: unknown): void {
  if (isMissing(value) || (isObject(value) && Object.keys(value).length === 0)) return;
  if (!Object.hasOwn(properties, key)) setOwnProperty(properties, key, value);
}

/** Moves `from` to `to`, unless `to` is already taken (then `from` stays as it is). */
export function renameIfAbsent(properties: Properties, from: string, to: string): void {
  if (!Object.hasOwn(properties, from) || Object.hasOwn(properties, to)) return;
  setOwnProperty(properties, to, properties[from]);
  delete properties[from];
}

/** Adds `$host` and `$pathname` from an absolute `$current_url`, as PostHog's web SDK sends them. */
export function addUrlParts(properties: Properties): void {
  const url = properties.$current_url;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return;
  try {
    const parsed = new URL(url);
    setIfAbsent(properties, '$host', parsed.host);
    setIfAbsent(properties, '$pathname', parsed.pathname);
  } catch {
    // Not a URL after all: leave the properties as they are.
  }
}

const ZONELESS_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

/**
 * A vendor time written without a zone whose export is UTC by contract (Amplitude's
 * `event_time`, PostHog's `timestamp`) is marked UTC here, explicitly, so it is never read as
 * local time and `--timezone` never applies to it. Other values pass through to the usual rules.
 */
export function markUtc(value: unknown): unknown {
  return typeof value === 'string' && ZONELESS_TIME.test(value.trim()) ? `${value.trim()} UTC` : value;
}

/**
 * The items of a vendor's JSON lines: each record mapped by the mapping built for the file,
 * with the roles `--column` names read from their paths.
 */
export function vendorItems(mapperFor: (options: ReaderOptions) => JsonRecordMapper): (options: ReaderOptions) => JsonItemMapper {
  return (options) => {
    const map = mapperFor(options);
    return jsonItemMapper((record) => applyJsonColumns(map(record), record, options.columns));
  };
}
