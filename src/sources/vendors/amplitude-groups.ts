/**
 * Amplitude's groups. `groups` (`{"company": ["acme"]}`) becomes PostHog's `$groups`, one key per
 * type as PostHog keeps it: the first, with the event noted when a type has several.
 * `group_properties` (`{"company": {"acme": {"name": "Acme"}}}`) becomes what the event says
 * about each group, turned into `$groupidentify` updates after staging. Pure.
 */
import type { GroupProperties } from '../../events/group-observations.js';
import { noteExample, type SourceNote } from '../../events/source-notes.js';
import { MAX_GROUP_KEY_CHARS } from '../../posthog/limits.js';
import { isObject, type Properties } from './vendor-values.js';

function keyText(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' || value.length > MAX_GROUP_KEY_CHARS ? undefined : value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
  return undefined;
}

/** `$groups` from Amplitude's `groups`, and a note when a type lists several keys (only the first is kept). */
export function amplitudeGroups(groups: unknown): { groups?: Properties; note?: SourceNote } {
  if (!isObject(groups)) return {};
  const out: Properties = {};
  const several: string[] = [];
  for (const [type, value] of Object.entries(groups)) {
    if (type === '' || type.length > MAX_GROUP_KEY_CHARS) continue;
    const keys = Array.isArray(value) ? value : [value];
    const key = keyText(keys[0]);
    if (key === undefined) continue;
    Object.defineProperty(out, type, { value: key, enumerable: true, writable: true, configurable: true });
    if (keys.length > 1) several.push(`${type}: ${keys.map((k) => String(k)).join(', ')}`);
  }
  return {
    groups: Object.keys(out).length > 0 ? out : undefined,
    note: several.length > 0 ? { code: 'several_group_keys', example: noteExample(several.join('; ')) } : undefined,
  };
}

/**
 * What `group_properties` says about each group: `{type: {key: {...}}}`; or, for a type whose
 * value holds the properties themselves, about the event's one key of that type. Groups with no
 * properties say nothing.
 */
export function amplitudeGroupProperties(groupProperties: unknown, groups: Properties | undefined): GroupProperties[] {
  if (!isObject(groupProperties)) return [];
  const out: GroupProperties[] = [];
  for (const [type, byKey] of Object.entries(groupProperties)) {
    if (!isObject(byKey) || type === '' || type.length > MAX_GROUP_KEY_CHARS) continue;
    const values = Object.values(byKey);
    if (values.length > 0 && values.every(isObject)) {
      for (const [key, properties] of Object.entries(byKey)) {
        if (keyText(key) !== undefined && Object.keys(properties as Properties).length > 0) out.push({ type, key, properties: properties as Properties });
      }
      continue;
    }
    const key = groups !== undefined && Object.hasOwn(groups, type) ? groups[type] : undefined;
    if (typeof key === 'string' && values.length > 0) out.push({ type, key, properties: byKey });
  }
  return out;
}
