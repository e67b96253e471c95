/**
 * Notebooks `groups/find/` creates, as PostHog lazily makes a group's CRM notebook on a find
 * without `skip_create_notebook=true`. Recorded so a test can prove a read-only command wrote
 * nothing (see `/_sandbox/notebooks`).
 */
import { randomBytes } from 'node:crypto';
import type { SandboxStore } from '../sandbox-store.js';

export interface NotebookRow {
  short_id: string;
  team_id: number;
  title: string;
  group_type_index: number;
  group_key: string;
  created_by: number | null;
  created_at: string;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function shortId(): string {
  return [...randomBytes(8)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
}

export function groupNotebook(store: SandboxStore, teamId: number, typeIndex: number, key: string): NotebookRow | undefined {
  return store.db
    .prepare('SELECT short_id, team_id, title, group_type_index, group_key, created_by, created_at FROM notebooks WHERE team_id = ? AND group_type_index = ? AND group_key = ?')
    .get(teamId, typeIndex, key) as NotebookRow | undefined;
}

/** The group's notebook, made now if it has none. */
export function ensureGroupNotebook(store: SandboxStore, row: Omit<NotebookRow, 'short_id'>): NotebookRow {
  const existing = groupNotebook(store, row.team_id, row.group_type_index, row.group_key);
  if (existing !== undefined) return existing;
  const created = { ...row, short_id: shortId() };
  store.db
    .prepare(
      `INSERT INTO notebooks (short_id, team_id, title, group_type_index, group_key, created_by, created_at)
       VALUES (@short_id, @team_id, @title, @group_type_index, @group_key, @created_by, @created_at)`,
    )
    .run(created);
  return created;
}

export function listNotebooks(store: SandboxStore): NotebookRow[] {
  return store.db.prepare('SELECT short_id, team_id, title, group_type_index, group_key, created_by, created_at FROM notebooks ORDER BY id').all() as NotebookRow[];
}
