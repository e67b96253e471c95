/**
 * The sandbox's texts of an event's time. ClickHouse keeps `events.timestamp` as
 * DateTime64(6, 'UTC'), so the events table stores every time with six fraction digits
 * (`2024-05-01T10:00:00.123456Z`): one form, so comparing the texts compares the times. Events
 * are shown (capture's result, the debug routes) with three digits, or six when there are
 * microseconds. Pure.
 */

const MS_FORM_LENGTH = 24; // YYYY-MM-DDTHH:MM:SS.mmmZ
const US_FORM_LENGTH = 27; // YYYY-MM-DDTHH:MM:SS.mmmuuuZ

/** Epoch ms and the microseconds past them as shown: `.mmmZ`, or `.mmmuuuZ` when there are microseconds. */
export function eventTimeText(ms: number, subMsUs: number): string {
  const iso = new Date(ms).toISOString();
  return subMsUs === 0 ? iso : `${iso.slice(0, -1)}${String(subMsUs).padStart(3, '0')}Z`;
}

/** A shown time (see eventTimeText) in the stored form, six fraction digits. */
export function storedTime(text: string): string {
  return text.length === MS_FORM_LENGTH && text.endsWith('Z') ? `${text.slice(0, -1)}000Z` : text;
}

/** A stored time as shown: three fraction digits when the microseconds are 0. */
export function shownTime(stored: string): string {
  return stored.length === US_FORM_LENGTH && stored.endsWith('000Z') ? `${stored.slice(0, -4)}Z` : stored;
}
