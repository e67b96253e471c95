/**
 * Avro values as the JSON rows are written from (columnar-values.ts): bytes and fixed values
 * as base64 text (Avro bytes are any bytes, not text), records and maps as objects, arrays as
 * arrays. Pure: avro-file.ts decodes, this only reshapes what it decoded.
 */
import { ExactNumeral, pushRow, RawJson, writeRow } from './columnar-values.js';

/** `value` with every byte array in it written as base64 text. Recursive: bounded by the schema's nesting. */
export function avroPlainValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (value instanceof ExactNumeral || value instanceof RawJson) return value;
  if (Array.isArray(value)) return value.map(avroPlainValue);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) Object.defineProperty(out, key, { value: avroPlainValue(item), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Pushes one decoded record's JSON object line of its columns (their keys from rowKeys) onto `parts`. */
export function pushAvroLine(parts: string[], columns: readonly string[], keys: readonly string[], record: Record<string, unknown>): void {
  pushRow(
    parts,
    keys,
    columns.map((name) => avroPlainValue(record[name])),
  );
}

/** One decoded record as a JSON object line of its `columns` (its top-level fields). */
export function avroLine(columns: readonly string[], record: Record<string, unknown>): string {
  return writeRow(
    columns,
    columns.map((name) => avroPlainValue(record[name])),
  );
}
