/**
 * JSON text of values read by parseJson, BigInts included: JSON.stringify refuses BigInts, and
 * Node 20 has no JSON.rawJSON to write a number's digits as they are. Values without a BigInt
 * (nearly all) are written by JSON.stringify itself, so the text is the same as before.
 */

/**
 * The JSON text of `value` as JSON.stringify writes it (key order, escapes, `undefined` members
 * left out, non-finite numbers as null, toJSON honoured), except that a BigInt is written as its
 * digits. Undefined for undefined, as JSON.stringify.
 */
export function stringifyJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    // The only TypeErrors JSON.stringify throws on parsed values are for BigInts.
    if (error instanceof TypeError) return writeValue(value, '');
    throw error;
  }
}

/** Written like JSON.stringify writes it; `key` is what toJSON is given. Recursive: parsed values are depth-bounded. */
function writeValue(value: unknown, key: string): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? writeArray(value) : writeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

function writeArray(array: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < array.length; i++) out += (i === 0 ? '' : ',') + (writeValue(array[i], String(i)) ?? 'null');
  return out + ']';
}

function writeObject(object: Record<string, unknown>): string {
  let out = '{';
  for (const key of Object.keys(object)) {
    const text = writeValue(object[key], key);
    if (text === undefined) continue;
    out += (out.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + text;
  }
  return out + '}';
}
