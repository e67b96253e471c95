/** UTC days as `verify` counts them: `YYYY-MM-DD`, from and to instants. Pure. */

export const DAY_MS = 86_400_000;

/** The UTC day of an instant (also before 1970). */
export function dayOf(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** Midnight UTC at the start of a `YYYY-MM-DD` day, in ms. */
export function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

/** The day's number since 1970-01-01 (negative before). */
export function dayNumber(day: string): number {
  return Math.round(dayStartMs(day) / DAY_MS);
}

export function dayFromNumber(n: number): string {
  return dayOf(n * DAY_MS);
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A valid calendar day written `YYYY-MM-DD`, or undefined. */
export function parseDay(text: string): string | undefined {
  const match = DAY.exec(text.trim());
  if (match === null) return undefined;
  const ms = dayStartMs(match[0]);
  return !Number.isNaN(ms) && dayOf(ms) === match[0] ? match[0] : undefined;
}
