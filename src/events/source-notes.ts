/**
 * Notes: things a reader or the staging rules did to rows that staged, worth counting in the
 * summary without being a reject (an Amplitude time taken from another field, a group type with
 * several keys, a source session id PostHog's sessions table will not keep). A row carries its
 * notes with it; pieces and files add them up with a few examples each. Pure.
 */

export const NOTE_CODES = ['time_from_client_event_time', 'time_from_server_received_time', 'several_group_keys', 'session_id_not_uuidv7', 'source_session_id_kept'] as const;
export type NoteCode = (typeof NOTE_CODES)[number];

/** One note on one row: what happened, and a short example value for the summary. */
export interface SourceNote {
  code: NoteCode;
  example?: string;
}

/** Notes added up: per code, how many rows, and the first few distinct examples. */
export type NoteCounts = Partial<Record<NoteCode, { count: number; examples: string[] }>>;

/** Examples kept per code. */
export const NOTE_EXAMPLES = 3;

/** Adds `n` rows with note `code` (and its examples) to `counts`. */
export function addNote(counts: NoteCounts, code: NoteCode, n: number, examples: readonly string[] = []): void {
  const entry = (counts[code] ??= { count: 0, examples: [] });
  entry.count += n;
  for (const example of examples) {
    if (entry.examples.length >= NOTE_EXAMPLES) break;
    if (!entry.examples.includes(example)) entry.examples.push(example);
  }
}

/** Adds every note of `from` to `into`. */
export function addNotes(into: NoteCounts, from: NoteCounts | undefined): void {
  if (from === undefined) return;
  for (const code of NOTE_CODES) {
    const entry = from[code];
    if (entry !== undefined) addNote(into, code, entry.count, entry.examples);
  }
}

/** A value cut to a length fit for a summary line. */
export function noteExample(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
