/** The sandbox's exports table: what was asked for, when, and the rendered bytes or the failure. */
import type { SandboxStore } from '../sandbox-store.js';

export interface ExportRow {
  id: number;
  team_id: number;
  dashboard: number | null;
  insight: number | null;
  export_format: string;
  export_context: string | null;
  created_by: number | null;
  created_at: string;
  filename: string;
  expires_after: string | null;
  has_content: 0 | 1;
  exception: string | null;
}

export type NewExport = Omit<ExportRow, 'id' | 'has_content' | 'exception'>;

const COLUMNS = `id, team_id, dashboard, insight, export_format, export_context, created_by, created_at, filename,
  expires_after, content IS NOT NULL AS has_content, exception`;

export function insertExport(store: SandboxStore, row: NewExport): number {
  const result = store.db
    .prepare(
      `INSERT INTO exports (team_id, dashboard, insight, export_format, export_context, created_by, created_at, filename, expires_after)
       VALUES (@team_id, @dashboard, @insight, @export_format, @export_context, @created_by, @created_at, @filename, @expires_after)`,
    )
    .run(row);
  return Number(result.lastInsertRowid);
}

/** An export as its creator sees it: the service shows nobody else's. */
export function getExport(store: SandboxStore, teamId: number, id: number, createdBy: number): ExportRow | undefined {
  return store.db.prepare(`SELECT ${COLUMNS} FROM exports WHERE team_id = ? AND id = ? AND created_by = ?`).get(teamId, id, createdBy) as ExportRow | undefined;
}

export function getExportById(store: SandboxStore, id: number): ExportRow | undefined {
  return store.db.prepare(`SELECT ${COLUMNS} FROM exports WHERE id = ?`).get(id) as ExportRow | undefined;
}

export function exportContent(store: SandboxStore, id: number): Buffer | null {
  const row = store.db.prepare('SELECT content FROM exports WHERE id = ?').get(id) as { content: Buffer | null } | undefined;
  return row?.content ?? null;
}

/** The caller's own exports, newest first, as the service lists them. */
export function listExports(store: SandboxStore, teamId: number, createdBy: number, limit: number, offset: number): { rows: ExportRow[]; count: number } {
  const rows = store.db
    .prepare(`SELECT ${COLUMNS} FROM exports WHERE team_id = ? AND created_by = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
    .all(teamId, createdBy, limit, offset) as ExportRow[];
  const { count } = store.db.prepare('SELECT COUNT(*) AS count FROM exports WHERE team_id = ? AND created_by = ?').get(teamId, createdBy) as { count: number };
  return { rows, count };
}

export function pendingExports(store: SandboxStore): ExportRow[] {
  return store.db.prepare(`SELECT ${COLUMNS} FROM exports WHERE content IS NULL AND exception IS NULL ORDER BY id`).all() as ExportRow[];
}

export function saveRendered(store: SandboxStore, id: number, outcome: { content: Buffer } | { exception: string }): void {
  if ('content' in outcome) store.db.prepare('UPDATE exports SET content = ? WHERE id = ?').run(outcome.content, id);
  else store.db.prepare('UPDATE exports SET exception = ? WHERE id = ?').run(outcome.exception, id);
}

/** The API's view of an export. */
export function exportJson(row: ExportRow): Record<string, unknown> {
  return {
    id: row.id,
    dashboard: row.dashboard,
    insight: row.insight,
    export_format: row.export_format,
    created_at: row.created_at,
    has_content: row.has_content === 1,
    filename: row.filename,
    expires_after: row.expires_after,
    exception: row.exception,
    export_context: row.export_context === null ? null : (JSON.parse(row.export_context) as unknown),
  };
}
