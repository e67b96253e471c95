/**
 * Property types forced at staging. PostHog fixes a property's type (string, number, boolean)
 * from the first value it sees, and later values of another type break its filters; it treats
 * `utm_*` properties as strings. The map file's `"types"` names the type of any top-level
 * property; `utm_*` properties are strings unless named there. Pure.
 */
import { setOwnProperty } from '../json/own-property.js';
import { problem, type RowProblem } from './reject-reasons.js';

export type ForcedType = 'string' | 'number' | 'boolean';

/** The type a property is staged as: the map file's, else string for `utm_*`, else none. */
export function forcedType(name: string, types: Readonly<Record<string, ForcedType>>): ForcedType | undefined {
  if (Object.hasOwn(types, name)) return types[name];
  return name.startsWith('utm_') ? 'string' : undefined;
}

/** Not coercible, with why; or the value. */
type Coerced = { ok: true; value: unknown } | { ok: false; why: string };

const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function toStringValue(value: unknown): Coerced {
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return { ok: true, value: String(value) };
  return { ok: false, why: `${describe(value)} is not text` };
}

function toNumberValue(value: unknown): Coerced {
  if (typeof value !== 'string') return { ok: false, why: `${describe(value)} is not a number` };
  const text = value.trim();
  if (!NUMBER_TEXT.test(text)) return { ok: false, why: `${describe(value)} is not a number` };
  const number = Number(text);
  if (!Number.isFinite(number)) return { ok: false, why: `${describe(value)} is out of range` };
  if (INTEGER_TEXT.test(text) && !Number.isSafeInteger(number)) {
    // Kept exact, as the JSON readers keep integers of up to 64 bits.
    const exact = BigInt(text);
    return exact >= INT64_MIN && exact <= UINT64_MAX ? { ok: true, value: exact } : { ok: false, why: `${describe(value)} is out of range` };
  }
  return { ok: true, value: number };
}

function toBooleanValue(value: unknown): Coerced {
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return { ok: true, value: true };
    if (text === 'false') return { ok: true, value: false };
  }
  if (value === 1 || value === 0) return { ok: true, value: value === 1 };
  return { ok: false, why: `${describe(value)} is not true or false` };
}

const COERCE: Record<ForcedType, (value: unknown) => Coerced> = { string: toStringValue, number: toNumberValue, boolean: toBooleanValue };

function hasType(value: unknown, type: ForcedType): boolean {
  if (type === 'number') return typeof value === 'number' || typeof value === 'bigint';
  return typeof value === type;
}

/**
 * Gives each top-level property its forced type, in place. Null stays null (it has no type).
 * A value the map file's type cannot be given is a problem naming the property; a `utm_*`
 * value that is not text, a number or a boolean (an object) is left as it is, since no one asked.
 */
export function coercePropertyTypes(properties: Record<string, unknown>, types: Readonly<Record<string, ForcedType>>): RowProblem | undefined {
  const given = Object.keys(types).length > 0;
  for (const name in properties) {
    // Most names are neither forced nor utm_*: one character tells.
    if (!given && name.charCodeAt(0) !== 117 /* u */) continue;
    const type = forcedType(name, types);
    const value = properties[name];
    if (type === undefined || value === null || value === undefined || hasType(value, type)) continue;
    const coerced = COERCE[type](value);
    if (coerced.ok) {
      setOwnProperty(properties, name, coerced.value);
      continue;
    }
    if (!Object.hasOwn(types, name)) continue;
    return problem('bad_property_type', name, `the map file makes "${name}" a ${type}, but ${coerced.why}`);
  }
  return undefined;
}
