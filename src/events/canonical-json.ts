/**
 * JSON with object keys sorted at every depth, so two records with the same content give the
 * same text whatever order their fields came in. The input of stable uuid derivation.
 * Recursive: values come from the JSON reader, whose depth is bounded.
 */
export function canonicalJson(value: unknown): string {
  // A BigInt (an integer beyond 2^53 read exactly) is written as its digits, as in the source.
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + canonicalJson(item);
    first = false;
  }
  return out + '}';
}
