/**
 * What PostHog's pipeline does with person and group updates, kept small enough to read:
 * `$set` / `$set_once` (on `$identify` or any event) update the person of the distinct_id,
 * `$anon_distinct_id` on `$identify` links an anonymous id to that person (merging two persons
 * when both exist), `$groupidentify` creates or updates a group (its type registered on first
 * use with the next index, at most 5 types), and `$groups` on any event registers its types.
 * Updates are applied in the order received: the last `$set` processed wins, as in PostHog.
 */
import type { Statement } from '../../sqlite/database.js';
import type { SandboxStore } from '../sandbox-store.js';
import type { CapturedEvent } from './capture-parse.js';

type Obj = Record<string, unknown>;

/** PostHog allows five group types per project (indexes 0 to 4). */
const MAX_GROUP_TYPES = 5;

function objectAt(properties: Obj, key: string): Obj | undefined {
  const value = properties[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}

export class PersonGroupUpdates {
  private readonly statements: Record<string, Statement>;

  constructor(private readonly store: SandboxStore) {
    const db = store.db;
    this.statements = {
      personOf: db.prepare('SELECT p.id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = ? AND d.distinct_id = ?'),
      newPerson: db.prepare("INSERT INTO persons (team_id, properties, created_at) VALUES (?, '{}', ?)"),
      link: db.prepare('INSERT OR REPLACE INTO person_distinct_ids (team_id, distinct_id, person_id) VALUES (?, ?, ?)'),
      moveIds: db.prepare('UPDATE person_distinct_ids SET person_id = ? WHERE team_id = ? AND person_id = ?'),
      dropPerson: db.prepare('DELETE FROM persons WHERE id = ?'),
      setProps: db.prepare('UPDATE persons SET properties = ? WHERE id = ?'),
      typeIndex: db.prepare('SELECT group_type_index AS i FROM group_types WHERE team_id = ? AND group_type = ?'),
      typeCount: db.prepare('SELECT count(*) AS n FROM group_types WHERE team_id = ?'),
      newType: db.prepare('INSERT INTO group_types (team_id, group_type, group_type_index) VALUES (?, ?, ?)'),
      group: db.prepare('SELECT group_properties FROM groups WHERE team_id = ? AND group_type_index = ? AND group_key = ?'),
      newGroup: db.prepare('INSERT INTO groups (team_id, group_type_index, group_key, group_properties, created_at) VALUES (?, ?, ?, ?, ?)'),
      setGroup: db.prepare('UPDATE groups SET group_properties = ? WHERE team_id = ? AND group_type_index = ? AND group_key = ?'),
    };
  }

  /** Applies one event's updates; call inside the transaction that stores it. */
  apply(teamId: number, event: CapturedEvent, now: string): void {
    const props = event.properties;
    const groups = objectAt(props, '$groups');
    if (groups) for (const type of Object.keys(groups)) this.groupTypeIndex(teamId, type);
    if (event.event === '$groupidentify') {
      this.identifyGroup(teamId, props, now);
      return;
    }
    const set = objectAt(props, '$set');
    const setOnce = objectAt(props, '$set_once');
    const anon = event.event === '$identify' && typeof props.$anon_distinct_id === 'string' ? props.$anon_distinct_id : undefined;
    if (!set && !setOnce && anon === undefined && event.event !== '$identify') return;
    const person = this.personFor(teamId, event.distinctId, anon, now);
    const properties = JSON.parse(person.properties) as Obj;
    for (const [key, value] of Object.entries(setOnce ?? {})) if (!Object.hasOwn(properties, key)) properties[key] = value;
    Object.assign(properties, set ?? {});
    this.statements.setProps!.run(JSON.stringify(properties), person.id);
  }

  private personFor(teamId: number, distinctId: string, anon: string | undefined, now: string): { id: number; properties: string } {
    const s = this.statements;
    const own = s.personOf!.get(teamId, distinctId) as { id: number; properties: string } | undefined;
    const other = anon === undefined ? undefined : (s.personOf!.get(teamId, anon) as { id: number; properties: string } | undefined);
    if (own && other && own.id !== other.id) {
      // Merge the anonymous person into the identified one; the identified one's values win.
      const merged = { ...(JSON.parse(other.properties) as Obj), ...(JSON.parse(own.properties) as Obj) };
      s.moveIds!.run(own.id, teamId, other.id);
      s.dropPerson!.run(other.id);
      return { id: own.id, properties: JSON.stringify(merged) };
    }
    const person = own ?? other ?? { id: Number(s.newPerson!.run(teamId, now).lastInsertRowid), properties: '{}' };
    s.link!.run(teamId, distinctId, person.id);
    if (anon !== undefined) s.link!.run(teamId, anon, person.id);
    return person;
  }

  private groupTypeIndex(teamId: number, type: string): number | undefined {
    const s = this.statements;
    const known = s.typeIndex!.get(teamId, type) as { i: number } | undefined;
    if (known) return known.i;
    const { n } = s.typeCount!.get(teamId) as { n: number };
    if (n >= MAX_GROUP_TYPES) return undefined;
    s.newType!.run(teamId, type, n);
    return n;
  }

  private identifyGroup(teamId: number, props: Obj, now: string): void {
    const type = props.$group_type;
    const key = props.$group_key;
    if (typeof type !== 'string' || type === '' || (typeof key !== 'string' && typeof key !== 'number')) return;
    const index = this.groupTypeIndex(teamId, type);
    if (index === undefined) return;
    const s = this.statements;
    const existing = s.group!.get(teamId, index, String(key)) as { group_properties: string } | undefined;
    const updates = objectAt(props, '$group_set') ?? {};
    if (existing === undefined) s.newGroup!.run(teamId, index, String(key), JSON.stringify(updates), now);
    else s.setGroup!.run(JSON.stringify({ ...(JSON.parse(existing.group_properties) as Obj), ...updates }), teamId, index, String(key));
  }
}
