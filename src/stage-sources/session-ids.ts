/**
 * A source's own `$session_id`, looked at as each row is staged. PostHog's sessions table keeps
 * only UUIDv7 session ids: any other (a number, a v4 uuid, a vendor's text) stays on the event
 * but makes no session, so it is noted for the summary. With --sessionize, such a value moves
 * to `$source_session_id` (never dropped) and the event gets a computed session id after
 * staging (see passes/sessionize.ts). Pure.
 */
import { isUuidV7 } from '../events/derived-uuids.js';
import { noteExample, type SourceNote } from '../events/source-notes.js';

/** The property a source's session id is kept under when --sessionize replaces it. */
export const SOURCE_SESSION_ID = '$source_session_id';

/** Notes on the row's `$session_id`; moves it aside first when `sessionize` is on. */
export function reviewSessionId(properties: Record<string, unknown>, sessionize: boolean): SourceNote[] | undefined {
  if (!Object.hasOwn(properties, '$session_id')) return undefined;
  const value = properties.$session_id;
  if (value === null || value === undefined || isUuidV7(value)) return undefined;
  const notes: SourceNote[] = [{ code: 'session_id_not_uuidv7', example: noteExample(value) }];
  if (sessionize && !Object.hasOwn(properties, SOURCE_SESSION_ID)) {
    properties[SOURCE_SESSION_ID] = value;
    delete properties.$session_id;
    notes.push({ code: 'source_session_id_kept' });
  }
  return notes;
}
