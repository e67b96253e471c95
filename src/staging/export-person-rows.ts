/**
 * The persons of PostHog batch exports staged so far (table export_person_rows): the row that
 * says each distinct id's person, and the row that gives each person's state, as the fold left
 * them (sources/vendors/posthog-persons.ts). Loaded whole before a run folds new persons files
 * in, saved whole after.
 */
import type { PersonRow } from '../sources/vendors/posthog-persons.js';
import type { StagingStore } from './staging-store.js';

const MAPPING = 0;
const PERSON = 1;

export interface SavedPersons {
  /** The latest row of each distinct id. */
  mappings: PersonRow[];
  /** The latest row of each person. */
  persons: PersonRow[];
}

function toJson(row: PersonRow): string {
  return JSON.stringify({ ...row, personVersion: String(row.personVersion), distinctIdVersion: String(row.distinctIdVersion) });
}

function fromJson(text: string): PersonRow {
  const row = JSON.parse(text) as Omit<PersonRow, 'personVersion' | 'distinctIdVersion'> & { personVersion: string; distinctIdVersion: string };
  return { ...row, personVersion: BigInt(row.personVersion), distinctIdVersion: BigInt(row.distinctIdVersion) };
}

export function loadExportPersons(store: StagingStore): SavedPersons {
  const rows = store.db.prepare('SELECT kind, row FROM export_person_rows ORDER BY kind, key').all() as Array<{ kind: number; row: string }>;
  return {
    mappings: rows.filter((r) => r.kind === MAPPING).map((r) => fromJson(r.row)),
    persons: rows.filter((r) => r.kind === PERSON).map((r) => fromJson(r.row)),
  };
}

/** Replaces the saved persons with `saved`, in one transaction. */
export function saveExportPersons(store: StagingStore, saved: SavedPersons): void {
  const insert = store.db.prepare('INSERT INTO export_person_rows (kind, key, row) VALUES (?, ?, ?)');
  store.transaction(() => {
    store.db.prepare('DELETE FROM export_person_rows').run();
    for (const row of saved.mappings) insert.run(MAPPING, row.distinctId, toJson(row));
    for (const row of saved.persons) insert.run(PERSON, row.personId, toJson(row));
  });
}
