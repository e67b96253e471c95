/** Durations as people type them on the command line: `90s`, `10m`, `1h30m`, `500ms`. Pure. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The duration in ms, or undefined when `text` is not one (a bare number is seconds). */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/^(?:\d+(?:ms|s|m|h))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)(ms|s|m|h)/g)) total += Number(amount) * UNIT_MS[unit!]!;
  return total;
}
