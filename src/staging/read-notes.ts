/**
 * Notes per read (see events/source-notes.ts), kept with each piece so an interrupted read that
 * is resumed reports the whole file's notes, like its counts.
 */
import { addNote, NOTE_CODES, type NoteCode, type NoteCounts } from '../events/source-notes.js';
import { statement } from './statement-cache.js';
import type { StagingStore } from './staging-store.js';

/** Adds a piece's notes to its read's; call in the piece's transaction. */
export function recordReadNotes(store: StagingStore, readId: number, notes: NoteCounts): void {
  if (Object.keys(notes).length === 0) return;
  const read = statement(store, 'SELECT count, examples FROM read_notes WHERE read_id = ? AND code = ?');
  const write = statement(store, 'INSERT OR REPLACE INTO read_notes (read_id, code, count, examples) VALUES (?, ?, ?, ?)');
  for (const code of NOTE_CODES) {
    const entry = notes[code];
    if (entry === undefined) continue;
    const row = read.get(readId, code) as { count: number; examples: string } | undefined;
    const merged: NoteCounts = {};
    if (row !== undefined) addNote(merged, code, row.count, JSON.parse(row.examples) as string[]);
    addNote(merged, code, entry.count, entry.examples);
    write.run(readId, code, merged[code]!.count, JSON.stringify(merged[code]!.examples));
  }
}

/** The notes a read recorded. */
export function readNotes(store: StagingStore, readId: number): NoteCounts {
  const rows = store.db.prepare('SELECT code, count, examples FROM read_notes WHERE read_id = ?').all(readId) as Array<{ code: NoteCode; count: number; examples: string }>;
  const notes: NoteCounts = {};
  for (const row of rows) addNote(notes, row.code, row.count, JSON.parse(row.examples) as string[]);
  return notes;
}
