/**
 * The persons table as PostHog's ingestion keeps it: a person per distinct_id (made on its
 * first event), `is_identified` once an `$identify` or `$create_alias` linked ids, and merges
 * that move every distinct_id of one person to another. A merged person's id is kept in
 * `person_overrides` pointing at the survivor, so events stored with the old id still resolve
 * to one person (PostHog's person overrides).
 */
import type { Statement } from '../../sqlite/database.js';
import type { SandboxStore } from '../sandbox-store.js';

type Obj = Record<string, unknown>;

export interface Person {
  id: number;
  properties: Obj;
  isIdentified: boolean;
  createdAt: string;
}

interface PersonRow {
  id: number;
  properties: string;
  is_identified: number;
  created_at: string;
}

type StatementName = 'personOf' | 'newPerson' | 'link' | 'moveIds' | 'dropPerson' | 'save' | 'override' | 'reOverride' | 'warning';

const toPerson = (row: PersonRow): Person => ({ id: row.id, properties: JSON.parse(row.properties) as Obj, isIdentified: row.is_identified === 1, createdAt: row.created_at });

export class PersonState {
  private readonly s: Record<StatementName, Statement>;

  constructor(store: SandboxStore) {
    const db = store.db;
    this.s = {
      personOf: db.prepare('SELECT p.id, p.properties, p.is_identified, p.created_at FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = ? AND d.distinct_id = ?'),
      newPerson: db.prepare('INSERT INTO persons (team_id, properties, is_identified, created_at) VALUES (?, ?, ?, ?)'),
      link: db.prepare('INSERT OR REPLACE INTO person_distinct_ids (team_id, distinct_id, person_id) VALUES (?, ?, ?)'),
      moveIds: db.prepare('UPDATE person_distinct_ids SET person_id = ? WHERE team_id = ? AND person_id = ?'),
      dropPerson: db.prepare('DELETE FROM persons WHERE id = ?'),
      save: db.prepare('UPDATE persons SET properties = ?, is_identified = ?, created_at = ? WHERE id = ?'),
      override: db.prepare('INSERT OR REPLACE INTO person_overrides (team_id, old_person_id, override_person_id) VALUES (?, ?, ?)'),
      reOverride: db.prepare('UPDATE person_overrides SET override_person_id = ? WHERE team_id = ? AND override_person_id = ?'),
      warning: db.prepare('INSERT INTO ingestion_warnings (team_id, type, details, timestamp) VALUES (?, ?, ?, ?)'),
    };
  }

  find(teamId: number, distinctId: string): Person | undefined {
    const row = this.s.personOf.get(teamId, distinctId) as PersonRow | undefined;
    return row === undefined ? undefined : toPerson(row);
  }

  create(teamId: number, distinctIds: readonly string[], properties: Obj, isIdentified: boolean, createdAt: string): Person {
    const id = Number(this.s.newPerson.run(teamId, JSON.stringify(properties), isIdentified ? 1 : 0, createdAt).lastInsertRowid);
    for (const distinctId of distinctIds) this.s.link.run(teamId, distinctId, id);
    return { id, properties, isIdentified, createdAt };
  }

  addDistinctId(teamId: number, person: Person, distinctId: string): void {
    this.s.link.run(teamId, distinctId, person.id);
  }

  save(person: Person): void {
    this.s.save.run(JSON.stringify(person.properties), person.isIdentified ? 1 : 0, person.createdAt, person.id);
  }

  /** Moves `other`'s ids to `into` and deletes `other`; its id now resolves to `into`. */
  absorb(teamId: number, into: Person, other: Person): void {
    this.s.moveIds.run(into.id, teamId, other.id);
    this.s.dropPerson.run(other.id);
    this.s.reOverride.run(into.id, teamId, other.id);
    this.s.override.run(teamId, other.id, into.id);
  }

  warn(teamId: number, type: string, details: Obj, timestamp: string): void {
    this.s.warning.run(teamId, type, JSON.stringify(details), timestamp);
  }
}
