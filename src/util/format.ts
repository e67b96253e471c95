/** Numbers, sizes and durations as people read them: in messages, progress lines and command output. */

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A count and its noun: "1 event", "2,000 events". Every count that meets a noun goes through here. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Events per second over an elapsed time, never dividing by zero. */
export function rate(n: number, elapsedMs: number): number {
  return elapsedMs <= 0 ? 0 : Math.round((n * 1000) / elapsedMs);
}

/** A duration for people: "45s", "3m05s", "2h07m". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Below this a time is not measured well enough to print it, or a rate from it. */
const SHORTEST_MEASURED_MS = 100;

/** A span of time in seconds: "under 0.1 s", "2.3 s", "45 s", then "3m05s" as duration() writes it. */
export function seconds(ms: number): string {
  if (ms < SHORTEST_MEASURED_MS) return 'under 0.1 s';
  const tenths = Math.round(ms / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} s`;
  if (ms < 59_500) return `${Math.round(ms / 1000)} s`;
  return duration(ms);
}

/**
 * How long a run took and how fast it went: "in 2.3 s (1,234 rows/s)". A run shorter than can
 * be measured says so ("in under 0.1 s") rather than show a rate made from a rounded time.
 */
export function took(ms: number, n: number, unit: string): string {
  if (ms < SHORTEST_MEASURED_MS) return `in ${seconds(ms)}`;
  return `in ${seconds(ms)} (${count(rate(n, ms))} ${unit}/s)`;
}
