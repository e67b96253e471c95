/**
 * `--from parquet` and `--from avro`: a table's rows as events, by the rules of `--from csv`
 * (csv-columns.ts): the `event`, `distinct_id` and `timestamp` columns (found ignoring case, or
 * named by `--column`), an optional `uuid`, an optional `properties` column holding a JSON object
 * (as text or as a record), and every other column a property named by the column. Null cells
 * are left out, as empty CSV cells are. Each row arrives as a JSON object line (parquet-input.ts).
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { InputError } from '../../errors.js';
import { mergeJsonProperties, readCsvHeader, type CsvColumns } from '../csv-columns.js';
import { itemOf, parseObjectLine } from '../json-lines.js';
import { setOwnProperty } from '../../json/own-property.js';
import type { JsonItemMapper, ReaderOptions } from '../source-item.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function mergeRecord(properties: Record<string, unknown>, value: Record<string, unknown>, column: string): RowProblem | undefined {
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(properties, key)) return problem('duplicate_property', column, `property "${key}" is both a column and a key of the ${column} record`);
    setOwnProperty(properties, key, value[key]);
  }
  return undefined;
}

function propertiesOf(columns: CsvColumns, values: unknown[]): { properties: Record<string, unknown> } | { problem: RowProblem } {
  const properties: Record<string, unknown> = {};
  for (const { index, name } of columns.extras) {
    const value = values[index];
    if (value !== null && value !== undefined) setOwnProperty(properties, name, value);
  }
  if (columns.properties === -1) return { properties };
  const value = values[columns.properties];
  const column = columns.names[columns.properties]!;
  if (value === null || value === undefined || value === '') return { properties };
  const bad =
    typeof value === 'string'
      ? mergeJsonProperties(properties, value, column)
      : isRecord(value)
        ? mergeRecord(properties, value, column)
        : problem('bad_properties', column, 'must hold a JSON object');
  return bad === undefined ? { properties } : { problem: bad };
}

/** One row (its values in column order) as a candidate event, or the reason it cannot be one. */
export function tableRowToCandidate(columns: CsvColumns, row: Record<string, unknown>): CandidateEvent | RowProblem {
  const values = columns.names.map((name) => row[name]);
  const read = propertiesOf(columns, values);
  if ('problem' in read) return read.problem;
  const at = (index: number): unknown => (index === -1 || values[index] === null ? undefined : values[index]);
  return {
    event: at(columns.event),
    distinctId: at(columns.distinctId),
    timestamp: at(columns.timestamp),
    uuid: at(columns.uuid),
    properties: read.properties,
    identity: canonicalJson(row),
    fieldNames: columns.fieldNames,
  };
}

/** The items of a table's rows: its columns found from the first row's names (every row names them all). */
export function tableItems(options: ReaderOptions): JsonItemMapper {
  let columns: CsvColumns | undefined;
  return (entry) => {
    const parsed = parseObjectLine(entry);
    if (parsed === undefined || !('object' in parsed)) return parsed;
    if (columns === undefined) {
      const header = readCsvHeader(Object.keys(parsed.object), options.columns);
      if (typeof header === 'string') throw new InputError(`${options.displayName}: ${header.replace('the header', 'the table')}`);
      columns = header;
    }
    return itemOf(entry.line, parsed.raw, tableRowToCandidate(columns, parsed.object));
  };
}
