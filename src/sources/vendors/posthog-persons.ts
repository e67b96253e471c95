/**
 * PostHog batch exports of the persons model: one row per distinct id, carrying its person's
 * id, properties, versions and deletion flag. Rows of several files and runs are folded into
 * one state, whatever order they come in: each distinct id belongs to the person of its row with
 * the highest `person_distinct_id_version`, each person has the properties of its row with the
 * highest `person_version`. The state becomes the lines of a users file, written exactly as
 * `--from posthog-api` writes the persons it reads (one `$set` on one distinct id, one link from
 * it to each other one), so both sources stage a person the same way. Pure.
 */
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { stringifyJson } from '../../json/json-writer.js';
import { personLines } from '../../source-apis/posthog-people-queries.js';
import { toUtcExact } from '../../source-apis/posthog-time.js';
import { propertiesOf } from './posthog.js';

/** Columns every persons export has and no events export has. */
const PERSONS_COLUMNS = ['distinct_id', 'person_id', 'person_version', 'person_distinct_id_version'] as const;

/** Whether a table's columns (or a first record's keys) are the persons model's rather than events'. */
export function isPersonsModel(columns: readonly string[]): boolean {
  const names = new Set(columns);
  return PERSONS_COLUMNS.every((c) => names.has(c)) && !names.has('event');
}

/** One row of a persons export, as read. */
export interface PersonRow {
  distinctId: string;
  personId: string;
  /** The properties as JSON object text, big integers with every digit. */
  propertiesJson: string;
  personVersion: bigint;
  distinctIdVersion: bigint;
  createdAt?: string;
  insertedAt?: string;
  isDeleted: boolean;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return undefined;
}

/** A version column: an integer (as a number, a BigInt or digits); missing reads as -1, below any real one. */
function version(value: unknown, field: string): bigint | RowProblem {
  if (value === undefined || value === null) return -1n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return problem('bad_value', field, `${field} must be an integer`);
}

function deleted(value: unknown): boolean | RowProblem {
  if (value === undefined || value === null || value === false || value === 0 || value === 'false' || value === '0') return false;
  if (value === true || value === 1 || value === 'true' || value === '1') return true;
  return problem('bad_value', 'is_deleted', 'is_deleted must be true or false');
}

/**
 * A time in UTC with its fraction's trailing zeros dropped: JSON lines write a whole second
 * without a fraction (`+00:00`), Parquet with six zeros, and the same person must give the
 * same update from either. Text that is not a time is kept, and refused when staged.
 */
function canonicalTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const utc = toUtcExact(value);
  return utc === undefined ? value : utc.replace(/(\.\d*?)0+Z$/, '$1Z').replace(/\.Z$/, 'Z');
}

/** A persons export row (a JSON line, or a Parquet row as one) as a PersonRow, or why it cannot be one. */
export function readPersonRow(record: Record<string, unknown>): PersonRow | RowProblem {
  const distinctId = text(record.distinct_id);
  if (distinctId === undefined || distinctId === '') return problem('missing_distinct_id', 'distinct_id', 'a persons row needs its distinct_id');
  const personId = text(record.person_id);
  if (personId === undefined || personId === '') return problem('bad_value', 'person_id', 'a persons row needs its person_id');
  const properties = propertiesOf(record.properties);
  if ('problem' in properties) return properties.problem;
  const personVersion = version(record.person_version, 'person_version');
  if (typeof personVersion !== 'bigint') return personVersion;
  const distinctIdVersion = version(record.person_distinct_id_version, 'person_distinct_id_version');
  if (typeof distinctIdVersion !== 'bigint') return distinctIdVersion;
  const isDeleted = deleted(record.is_deleted);
  if (typeof isDeleted !== 'boolean') return isDeleted;
  return {
    distinctId,
    personId,
    propertiesJson: stringifyJson(properties.value) ?? '{}',
    personVersion,
    distinctIdVersion,
    createdAt: canonicalTime(text(record.created_at)),
    insertedAt: text(record._inserted_at),
    isDeleted,
  };
}

function compareText(a: string | undefined, b: string | undefined): number {
  const x = a ?? '';
  const y = b ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareVersion(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Which of two states of one person is the later: the higher person_version; on a tie (two
 * rows of one version that differ, which PostHog does not write) the deleted one, then the later
 * `_inserted_at`, then the greater properties text, so the winner never depends on the order.
 */
function comparePerson(a: PersonRow, b: PersonRow): number {
  return (
    compareVersion(a.personVersion, b.personVersion) ||
    Number(a.isDeleted) - Number(b.isDeleted) ||
    compareText(a.insertedAt, b.insertedAt) ||
    compareText(a.propertiesJson, b.propertiesJson) ||
    compareText(a.createdAt, b.createdAt)
  );
}

/** Which of two mappings of one distinct id is the later: the higher person_distinct_id_version, then as comparePerson, then the greater person id. */
function compareMapping(a: PersonRow, b: PersonRow): number {
  return compareVersion(a.distinctIdVersion, b.distinctIdVersion) || comparePerson(a, b) || compareText(a.personId, b.personId);
}

export interface PersonsTotals {
  /** Persons staged (each with at least one distinct id). */
  persons: number;
  /** Distinct ids of those persons. */
  distinctIds: number;
  /** Persons whose latest state is deleted: not staged. */
  deleted: number;
  /** Distinct ids left out because their person is deleted. */
  deletedDistinctIds: number;
}

/** The persons of every row added, folded by version; the same state whatever the order of the rows. */
export class PersonsState {
  private readonly mappings = new Map<string, PersonRow>();
  private readonly persons = new Map<string, PersonRow>();

  /** A state saved before (see staging/export-person-rows.ts), each row where it was. */
  static restore(saved: { mappings: readonly PersonRow[]; persons: readonly PersonRow[] }): PersonsState {
    const state = new PersonsState();
    for (const row of saved.mappings) state.mappings.set(row.distinctId, row);
    for (const row of saved.persons) state.persons.set(row.personId, row);
    return state;
  }

  /** The rows the state keeps, to save it. */
  saved(): { mappings: PersonRow[]; persons: PersonRow[] } {
    return { mappings: [...this.mappings.values()], persons: [...this.persons.values()] };
  }

  add(row: PersonRow): void {
    const mapping = this.mappings.get(row.distinctId);
    if (mapping === undefined || compareMapping(row, mapping) > 0) this.mappings.set(row.distinctId, row);
    const person = this.persons.get(row.personId);
    if (person === undefined || comparePerson(row, person) > 0) this.persons.set(row.personId, row);
  }

  /** Each person's distinct ids (those whose latest mapping names it), sorted. */
  private distinctIdsByPerson(): Map<string, string[]> {
    const byPerson = new Map<string, string[]>();
    for (const [distinctId, row] of this.mappings) byPerson.set(row.personId, [...(byPerson.get(row.personId) ?? []), distinctId]);
    return byPerson;
  }

  /**
   * The users file lines of the state, persons in id order: a deleted person is left out, and
   * so is a person every distinct id of which now belongs to another (merged into it).
   */
  lines(): { lines: string[]; totals: PersonsTotals } {
    const totals: PersonsTotals = { persons: 0, distinctIds: 0, deleted: 0, deletedDistinctIds: 0 };
    const lines: string[] = [];
    const ids = this.distinctIdsByPerson();
    for (const personId of [...this.persons.keys()].sort()) {
      const person = this.persons.get(personId)!;
      const distinctIds = ids.get(personId) ?? [];
      if (person.isDeleted) {
        totals.deleted++;
        totals.deletedDistinctIds += distinctIds.length;
        continue;
      }
      if (distinctIds.length === 0) continue;
      totals.persons++;
      totals.distinctIds += distinctIds.length;
      lines.push(...personLines([personId, person.propertiesJson, person.createdAt], distinctIds, 'UTC'));
    }
    return { lines, totals };
  }
}
