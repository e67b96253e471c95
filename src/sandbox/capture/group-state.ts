/**
 * Groups as PostHog's ingestion keeps them: a group type gets the next index the first time
 * it is seen (five per project, 0 to 4), a group exists only once a `$groupidentify` named it
 * (its `$group_set` merged into its properties), and an event that references groups through
 * `$groups: {type: key}` gets `$group_<index>: key` and carries a snapshot of each group's
 * properties as they are then.
 */
import type { Statement } from '../../sqlite/database.js';
import type { SandboxStore } from '../sandbox-store.js';
import { MAX_GROUP_TYPES } from '../../posthog/limits.js';

type Obj = Record<string, unknown>;

const objectAt = (properties: Obj, key: string): Obj | undefined => {
  const value = properties[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
};

const groupKeyText = (key: unknown): string | undefined => (typeof key === 'string' ? key : typeof key === 'number' ? String(key) : undefined);

export class GroupState {
  private readonly s: Record<'typeIndex' | 'typeCount' | 'newType' | 'group' | 'newGroup' | 'setGroup', Statement>;

  constructor(store: SandboxStore) {
    const db = store.db;
    this.s = {
      typeIndex: db.prepare('SELECT group_type_index AS i FROM group_types WHERE team_id = ? AND group_type = ?'),
      typeCount: db.prepare('SELECT count(*) AS n FROM group_types WHERE team_id = ?'),
      newType: db.prepare('INSERT INTO group_types (team_id, group_type, group_type_index) VALUES (?, ?, ?)'),
      group: db.prepare('SELECT group_properties FROM groups WHERE team_id = ? AND group_type_index = ? AND group_key = ?'),
      newGroup: db.prepare('INSERT INTO groups (team_id, group_type_index, group_key, group_properties, created_at) VALUES (?, ?, ?, ?, ?)'),
      setGroup: db.prepare('UPDATE groups SET group_properties = ? WHERE team_id = ? AND group_type_index = ? AND group_key = ?'),
    };
  }

  /** The type's index, registering it if there is room; undefined past five types. */
  typeIndex(teamId: number, type: string): number | undefined {
    const known = this.s.typeIndex.get(teamId, type) as { i: number } | undefined;
    if (known) return known.i;
    const { n } = this.s.typeCount.get(teamId) as { n: number };
    if (n >= MAX_GROUP_TYPES) return undefined;
    this.s.newType.run(teamId, type, n);
    return n;
  }

  /** A `$groupidentify`: creates the group or merges `$group_set` into it. */
  identify(teamId: number, props: Obj, now: string): void {
    const type = props.$group_type;
    const key = groupKeyText(props.$group_key);
    if (typeof type !== 'string' || type === '' || key === undefined) return;
    const index = this.typeIndex(teamId, type);
    if (index === undefined) return;
    const existing = this.s.group.get(teamId, index, key) as { group_properties: string } | undefined;
    const updates = objectAt(props, '$group_set') ?? {};
    if (existing === undefined) this.s.newGroup.run(teamId, index, key, JSON.stringify(updates), now);
    else this.s.setGroup.run(JSON.stringify({ ...(JSON.parse(existing.group_properties) as Obj), ...updates }), teamId, index, key);
  }

  /**
   * Sets `$group_<index>` on the event for each group in `$groups` and answers the groups'
   * properties by index (`{}` for a group never identified), as PostHog stores them on events.
   * A `$group_<index>` the event already carries is never cleared, only overwritten by `$groups`.
   */
  snapshot(teamId: number, props: Obj): Array<string | null> {
    const out: Array<string | null> = [null, null, null, null, null];
    const groups = objectAt(props, '$groups');
    if (!groups) return out;
    for (const [type, rawKey] of Object.entries(groups)) {
      const key = groupKeyText(rawKey);
      const index = this.typeIndex(teamId, type);
      if (index === undefined || key === undefined) continue;
      props[`$group_${index}`] = key;
      const row = this.s.group.get(teamId, index, key) as { group_properties: string } | undefined;
      out[index] = row?.group_properties ?? '{}';
    }
    return out;
  }
}
