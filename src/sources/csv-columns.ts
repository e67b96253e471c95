/**
 * Maps a CSV header to event fields and turns one record into a candidate event. Pure: the
 * reader feeds it text, the rules in build-event decide what is staged.
 */
import type { CandidateEvent } from '../events/build-event.js';
import { problem, type RowProblem } from '../events/reject-reasons.js';
import type { CsvRecord } from './csv-tokenizer.js';
import type { CsvRole } from './source-item.js';

export interface CsvColumns {
  names: string[];
  event: number;
  distinctId: number;
  timestamp: number;
  uuid: number;
  properties: number;
  /** Every other column: it becomes a property named by its header. */
  extras: Array<{ index: number; name: string }>;
  /** Column indexes in name order, with their JSON-quoted names: the identity text's layout. */
  identity: Array<{ index: number; key: string }>;
  fieldNames: CandidateEvent['fieldNames'];
}

const REQUIRED: readonly CsvRole[] = ['event', 'distinct_id', 'timestamp'];

/** Reads the header row; returns an error sentence when the file cannot be used. */
export function readCsvHeader(fields: string[], renames: Partial<Record<CsvRole, string>> = {}): CsvColumns | string {
  const names = fields.map((name) => name.trim());
  const seen = new Map<string, number>();
  for (const [index, name] of names.entries()) {
    if (name === '') return `column ${index + 1} of the header has no name`;
    if (seen.has(name)) return `the header names column "${name}" twice (columns ${seen.get(name)! + 1} and ${index + 1})`;
    seen.set(name, index);
  }
  const find = (role: CsvRole): number => seen.get(renames[role] ?? role) ?? -1;
  const missing = REQUIRED.filter((role) => find(role) === -1).map((role) => renames[role] ?? role);
  if (missing.length > 0) {
    return `the header has no ${missing.map((m) => `"${m}"`).join(', ')} column (found: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', ...' : ''}); use --column role=header to name it`;
  }
  const roles = new Set(['event', 'distinct_id', 'timestamp', 'uuid', 'properties'].map((r) => find(r as CsvRole)));
  return {
    names,
    event: find('event'),
    distinctId: find('distinct_id'),
    timestamp: find('timestamp'),
    uuid: find('uuid'),
    properties: find('properties'),
    extras: names.flatMap((name, index) => (roles.has(index) ? [] : [{ index, name }])),
    identity: names
      .map((name, index) => ({ index, key: JSON.stringify(name) + ':' , name }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(({ index, key }) => ({ index, key })),
    fieldNames: {
      event: names[find('event')],
      distinctId: names[find('distinct_id')],
      timestamp: names[find('timestamp')],
      uuid: find('uuid') === -1 ? 'uuid' : names[find('uuid')],
    },
  };
}

/** `42` -> 42 and `true` -> true, only when the text round-trips exactly (`007` stays text). */
export function inferCell(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  const first = text.charCodeAt(0);
  if ((first >= 48 && first <= 57) || first === 45) {
    const value = Number(text);
    if (Number.isFinite(value) && String(value) === text) return value;
  }
  return text;
}

/** Characters JSON.stringify would escape (quotes, backslash, controls, lone surrogates). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON string literal of `text`; the common case needs no escaping and skips JSON.stringify. */
function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function identityOf(columns: CsvColumns, fields: string[]): string {
  let out = '{';
  for (const { index, key } of columns.identity) {
    const value = fields[index]!;
    if (value === '') continue;
    out += (out.length === 1 ? '' : ',') + key + jsonString(value);
  }
  return out + '}';
}

function mergeJsonProperties(properties: Record<string, unknown>, text: string, column: string): RowProblem | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return problem('bad_properties', column, `not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return problem('bad_properties', column, `must be a JSON object, got ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}`);
  }
  const object = parsed as Record<string, unknown>;
  for (const key in object) {
    if (Object.hasOwn(properties, key)) {
      return problem('duplicate_property', column, `property "${key}" is both a column and a key of the ${column} JSON`);
    }
    properties[key] = object[key];
  }
  return undefined;
}

/** One CSV record as a candidate event, or the reason it cannot be one. */
export function csvRecordToCandidate(columns: CsvColumns, record: CsvRecord, inferTypes: boolean): CandidateEvent | RowProblem {
  const fields = record.fields;
  if (fields.length !== columns.names.length) {
    return problem('bad_csv', '', `expected ${columns.names.length} fields as in the header, found ${fields.length}`);
  }
  const properties: Record<string, unknown> = {};
  for (const { index, name } of columns.extras) {
    const value = fields[index]!;
    if (value !== '') properties[name] = inferTypes ? inferCell(value) : value;
  }
  if (columns.properties !== -1 && fields[columns.properties] !== '') {
    const bad = mergeJsonProperties(properties, fields[columns.properties]!, columns.names[columns.properties]!);
    if (bad) return bad;
  }
  return {
    event: fields[columns.event],
    distinctId: fields[columns.distinctId],
    timestamp: fields[columns.timestamp],
    uuid: columns.uuid === -1 ? undefined : fields[columns.uuid],
    properties,
    identity: identityOf(columns, fields),
    fieldNames: columns.fieldNames,
  };
}
