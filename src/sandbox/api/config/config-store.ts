/**
 * The project's configuration objects as the sandbox keeps them: one row per object, its
 * writable fields as a JSON body, soft deletion as PostHog does (`deleted: true`), ids from one
 * sequence (so ids differ between two projects' copies, as they do between instances).
 */
import type { SandboxStore } from '../../sandbox-store.js';

export type ConfigKind = 'actions' | 'cohorts' | 'feature_flags' | 'insights' | 'dashboards' | 'tiles' | 'annotations' | 'experiments' | 'surveys' | 'insight_variables';

export interface ConfigRow {
  id: number;
  kind: ConfigKind;
  body: Record<string, unknown>;
  deleted: boolean;
  createdAt: string;
  updatedAt: string;
}

interface RawRow {
  id: number;
  kind: ConfigKind;
  body: string;
  deleted: number;
  created_at: string;
  updated_at: string;
}

function toRow(raw: RawRow): ConfigRow {
  return { id: raw.id, kind: raw.kind, body: JSON.parse(raw.body) as Record<string, unknown>, deleted: raw.deleted === 1, createdAt: raw.created_at, updatedAt: raw.updated_at };
}

export class ConfigStore {
  constructor(
    private readonly store: SandboxStore,
    private readonly teamId: number,
    private readonly now: () => Date,
  ) {}

  list(kind: ConfigKind, includeDeleted = false): ConfigRow[] {
    const rows = this.store.db.prepare(`SELECT * FROM config_objects WHERE team_id = ? AND kind = ? ${includeDeleted ? '' : 'AND deleted = 0'} ORDER BY id`).all(this.teamId, kind) as RawRow[];
    return rows.map(toRow);
  }

  get(kind: ConfigKind, id: number): ConfigRow | undefined {
    const raw = this.store.db.prepare('SELECT * FROM config_objects WHERE team_id = ? AND kind = ? AND id = ?').get(this.teamId, kind, id) as RawRow | undefined;
    return raw === undefined ? undefined : toRow(raw);
  }

  insert(kind: ConfigKind, body: Record<string, unknown>): ConfigRow {
    const at = this.now().toISOString();
    const deleted = body.deleted === true ? 1 : 0;
    const result = this.store.db
      .prepare('INSERT INTO config_objects (team_id, kind, body, deleted, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(this.teamId, kind, JSON.stringify(body), deleted, at, at);
    return this.get(kind, Number(result.lastInsertRowid))!;
  }

  update(row: ConfigRow, body: Record<string, unknown>): ConfigRow {
    const deleted = body.deleted === true ? 1 : 0;
    this.store.db.prepare('UPDATE config_objects SET body = ?, deleted = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(body), deleted, this.now().toISOString(), row.id);
    return this.get(row.kind, row.id)!;
  }

  /** Live objects of a kind in the organization's other projects whose body field `field` is `value`. */
  listInOtherProjects(kind: ConfigKind, organizationId: string, field: string, value: string): ConfigRow[] {
    const rows = this.store.db
      .prepare(
        `SELECT c.* FROM config_objects c JOIN projects p ON p.id = c.team_id
         WHERE p.organization_id = ? AND c.team_id != ? AND c.kind = ? AND c.deleted = 0 AND json_extract(c.body, '$.' || ?) = ? ORDER BY c.id`,
      )
      .all(organizationId, this.teamId, kind, field, value) as RawRow[];
    return rows.map(toRow);
  }

  /** PostHog hard-deletes a soft-deleted flag whose key is taken again. */
  purge(row: ConfigRow): void {
    this.store.db.prepare('DELETE FROM config_objects WHERE id = ?').run(row.id);
  }
}
