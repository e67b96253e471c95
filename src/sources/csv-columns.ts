/**
 * Maps a CSV header to event fields and turns one record into a candidate event. Pure: the
 * reader feeds it text, the rules in build-event decide what is staged.
 */
import type { CandidateEvent } from '../events/build-event.js';
import { problem, type RowProblem } from '../events/reject-reasons.js';
import { MAX_PROPERTIES_DEPTH } from '../json/json-depth.js';
import type { CsvRecord } from './csv-tokenizer.js';
import { exactIntegerOfText } from '../json/json-numbers.js';
import { setOwnProperty } from '../json/own-property.js';
import { parseJson } from '../json/read-json.js';
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

/** Header names, trimmed, each named once: a map from name to column index, or an error sentence. */
export function headerIndex(fields: string[]): Map<string, number> | string {
  const seen = new Map<string, number>();
  for (const [index, raw] of fields.entries()) {
    const name = raw.trim();
    if (name === '') return `column ${index + 1} of the header has no name`;
    if (seen.has(name)) return `the header names column "${name}" twice (columns ${seen.get(name)! + 1} and ${index + 1})`;
    seen.set(name, index);
  }
  return seen;
}

/**
 * The column a role is read from: the header named exactly (its own name, or the one --column
 * gives), else the one header that matches ignoring case (`Event`, `DISTINCT_ID`); -1 when
 * none; an error sentence when several match only ignoring case.
 */
export function findColumn(seen: Map<string, number>, name: string, role: string): number | string {
  const exact = seen.get(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  const matches = [...seen.keys()].filter((header) => header.toLowerCase() === lower);
  if (matches.length > 1) return `the header has ${matches.map((m) => `"${m}"`).join(' and ')}: name the ${role} column with --column ${role}=<header>`;
  return matches.length === 1 ? seen.get(matches[0]!)! : -1;
}

/** Delimiters a header of one unsplit column may hold, with the --delimiter value that reads it. */
const OTHER_DELIMITERS: ReadonlyArray<readonly [string, string]> = [
  [';', ';'],
  ['\t', 'tab'],
  ['|', '|'],
];

/** When the header is one column holding another delimiter: the flag to pass, as a clause. */
export function delimiterHint(names: readonly string[], delimiter = ','): string {
  if (names.length !== 1) return '';
  const found = OTHER_DELIMITERS.find(([char]) => char !== delimiter && names[0]!.includes(char));
  if (found === undefined) return '';
  return `; the header is one column holding ${found[1] === 'tab' ? 'tabs' : `"${found[0]}"`}: pass --delimiter '${found[1]}'`;
}

/** Column names for a message: the first twelve. */
export function listNames(names: readonly string[]): string {
  return `${names.slice(0, 12).join(', ')}${names.length > 12 ? ', ...' : ''}`;
}

/** Reads the header row; returns an error sentence when the file cannot be used. */
export function readCsvHeader(fields: string[], renames: Partial<Record<CsvRole, string>> = {}, delimiter = ','): CsvColumns | string {
  const seen = headerIndex(fields);
  if (typeof seen === 'string') return seen;
  const names = [...seen.keys()];
  const found = {} as Record<CsvRole, number>;
  for (const role of ['event', 'distinct_id', 'timestamp', 'uuid', 'properties'] as const) {
    const index = findColumn(seen, renames[role] ?? role, role);
    if (typeof index === 'string') return index;
    found[role] = index;
  }
  const missing = REQUIRED.filter((role) => found[role] === -1).map((role) => renames[role] ?? role);
  if (missing.length > 0) {
    return `the header has no ${missing.map((m) => `"${m}"`).join(', ')} column (found: ${listNames(names)})${delimiterHint(names, delimiter)}; use --column role=header to name it`;
  }
  const roles = new Set(Object.values(found));
  return {
    names,
    event: found.event,
    distinctId: found.distinct_id,
    timestamp: found.timestamp,
    uuid: found.uuid,
    properties: found.properties,
    extras: names.flatMap((name, index) => (roles.has(index) ? [] : [{ index, name }])),
    identity: names
      .map((name, index) => ({ index, key: JSON.stringify(name) + ':', name }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(({ index, key }) => ({ index, key })),
    fieldNames: {
      event: names[found.event],
      distinctId: names[found.distinct_id],
      timestamp: names[found.timestamp],
      uuid: found.uuid === -1 ? 'uuid' : names[found.uuid],
    },
  };
}

/**
 * `42` -> 42 and `true` -> true, only when the text round-trips exactly (`007`, `1e5` and
 * `1e400` stay text). A digit cell beyond 2^53 that fits 64 bits keeps its exact digits as a
 * BigInt (written back as the same numeral); a wider one stays text.
 */
export function inferCell(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  const first = text.charCodeAt(0);
  if ((first >= 48 && first <= 57) || first === 45) {
    const value = Number(text);
    if (Number.isFinite(value) && String(value) === text) return value;
    return exactIntegerOfText(text) ?? text;
  }
  return text;
}

/** Characters JSON.stringify would escape (quotes, backslash, controls, lone surrogates). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON string literal of `text`; the common case needs no escaping and skips JSON.stringify. */
export function jsonString(text: string): string {
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

export function mergeJsonProperties(properties: Record<string, unknown>, text: string, column: string): RowProblem | undefined {
  const parsed = parseJson(text, { maxDepth: MAX_PROPERTIES_DEPTH, wellFormedText: true });
  if (!parsed.ok) {
    const p = parsed.problem;
    const field = p.field === '' ? column : `${column}.${p.field}`;
    return p.reason === 'bad_json' ? problem('bad_properties', field, p.message) : problem(p.reason, field, p.message);
  }
  const object = parsed.value;
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    return problem('bad_properties', column, `must be a JSON object, got ${Array.isArray(object) ? 'an array' : object === null ? 'null' : typeof object}`);
  }
  for (const key of Object.keys(object)) {
    if (Object.hasOwn(properties, key)) {
      return problem('duplicate_property', column, `property "${key}" is both a column and a key of the ${column} JSON`);
    }
    setOwnProperty(properties, key, object[key]);
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
    if (value !== '') setOwnProperty(properties, name, inferTypes ? inferCell(value) : value);
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
