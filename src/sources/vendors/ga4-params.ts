/**
 * GA4's key/value lists (`event_params`, `user_properties`, `items[].item_params`) as plain
 * objects: each `{key, value: {string_value | int_value | float_value | double_value}}` gives
 * its key the one typed value that is set. BigQuery's JSON export writes INT64 as a string of
 * digits; it becomes a number when JavaScript holds it exactly, else stays its exact digits.
 */
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { setOwnProperty } from '../../json/own-property.js';
import { isObject, type Properties } from './vendor-values.js';

/** The value fields of a parameter, in the order they are looked at. */
const VALUE_FIELDS = ['string_value', 'int_value', 'float_value', 'double_value'] as const;

const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** An INT64 as BigQuery's JSON writes it (a string of digits) or as a number. */
export function ga4Integer(value: unknown): unknown {
  if (typeof value !== 'string' || !INTEGER_TEXT.test(value)) return value;
  const number = Number(value);
  // Beyond 2^53 a JavaScript number would round the id: its digits are kept as text instead.
  return Number.isSafeInteger(number) ? number : value;
}

/** A FLOAT64 as a number; BigQuery may write one as text ("1.5", "NaN"), kept when it is not a finite number. */
function ga4Float(value: unknown): unknown {
  if (typeof value !== 'string' || !NUMBER_TEXT.test(value)) return value;
  const number = Number(value);
  return Number.isFinite(number) ? number : value;
}

/** The value of one parameter's `value` object: the first typed field set, or null when none is. */
export function ga4ParamValue(value: Properties): unknown {
  for (const field of VALUE_FIELDS) {
    const given = value[field];
    if (given === undefined || given === null) continue;
    if (field === 'int_value') return ga4Integer(given);
    if (field === 'string_value') return given;
    return ga4Float(given);
  }
  return null;
}

export type Flattened = { ok: true; value: Properties } | { ok: false; problem: RowProblem };

const fail = (p: RowProblem): Flattened => ({ ok: false, problem: p });

/**
 * A GA4 key/value list as an object, or the problem with it: not a list, an entry without a
 * string key or an object value, or a key given twice (never silently overwritten).
 */
export function flattenGa4Params(list: unknown, field: string): Flattened {
  const out: Properties = {};
  if (list === undefined || list === null) return { ok: true, value: out };
  if (!Array.isArray(list)) return fail(problem('bad_properties', field, `${field} must be a list of {key, value}`));
  for (const [i, entry] of list.entries()) {
    const at = `${field}[${i}]`;
    if (!isObject(entry) || typeof entry.key !== 'string' || entry.key === '') return fail(problem('bad_properties', at, `${at} must be an object with a "key" string`));
    const value = entry.value ?? {};
    if (!isObject(value)) return fail(problem('bad_properties', `${at}.value`, `${at}.value must be an object of typed values`));
    if (Object.hasOwn(out, entry.key)) return fail(problem('duplicate_property', at, `"${entry.key}" is given twice in ${field}`));
    setOwnProperty(out, entry.key, ga4ParamValue(value));
  }
  return { ok: true, value: out };
}

/** INT64 fields of the e-commerce records, which BigQuery's JSON writes as text. */
const ECOMMERCE_INTEGERS = ['total_item_quantity', 'unique_items'];
const ITEM_INTEGERS = ['quantity'];

function withIntegers(record: Properties, fields: readonly string[]): Properties {
  const out: Properties = { ...record };
  for (const field of fields) if (Object.hasOwn(out, field)) out[field] = ga4Integer(out[field]);
  return out;
}

/** `ecommerce` with its counts as numbers. */
export function ga4Ecommerce(value: unknown): unknown {
  return isObject(value) ? withIntegers(value, ECOMMERCE_INTEGERS) : value;
}

/** `items` with each item's quantity as a number and its `item_params` as an object (kept as given when malformed). */
export function ga4Items(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item: unknown) => {
    if (!isObject(item)) return item;
    const out = withIntegers(item, ITEM_INTEGERS);
    const params = flattenGa4Params(item.item_params, 'item_params');
    if (params.ok && Array.isArray(item.item_params)) out.item_params = params.value;
    return out;
  });
}
