/**
 * `verify --wait`: PostHog ingests asynchronously, so events sent minutes ago may not be
 * queryable yet. Reads again every minute until everything delivered has landed, two readings
 * a minute apart agree (ingestion has settled: what is missing now stays missing), or the time
 * is up. Each reading's queries go through the management client, which waits out 429s.
 */
import { InterruptedError } from '../errors.js';
import type { Reporter } from '../reporter.js';
import type { Clock } from '../util/clock.js';
import { count, duration } from '../util/format.js';
import type { LandedCounts } from './landed-counts.js';

/** Time between two readings, in ms. */
export const READING_INTERVAL_MS = 60_000;

export interface Reading {
  landed: LandedCounts;
  /** Events delivered and not found; 0 means complete. */
  missing: number;
  delivered: number;
}

export interface WaitOutcome<R extends Reading = Reading> {
  reading: R;
  readings: number;
  /** Why the readings ended: complete, two readings agreed, time up, or no wait asked. */
  ended: 'complete' | 'settled' | 'time-up' | 'no-wait';
  waitedMs: number;
}

export interface WaitOptions {
  /** How long to keep reading, in ms; 0 reads once. */
  waitMs: number;
  clock: Clock;
  signal: AbortSignal;
  reporter: Reporter;
}

function sameCounts(a: LandedCounts, b: LandedCounts): boolean {
  if (a.size !== b.size) return false;
  for (const [key, n] of a) if (b.get(key) !== n) return false;
  return true;
}

export async function readUntilSettled<R extends Reading>(read: () => Promise<R>, o: WaitOptions): Promise<WaitOutcome<R>> {
  const startMs = o.clock.now();
  let reading = await read();
  let readings = 1;
  if (reading.missing === 0) return { reading, readings, ended: 'complete', waitedMs: 0 };
  if (o.waitMs <= 0) return { reading, readings, ended: 'no-wait', waitedMs: 0 };
  for (;;) {
    const leftMs = startMs + o.waitMs - o.clock.now();
    if (leftMs <= 0) return { reading, readings, ended: 'time-up', waitedMs: o.clock.now() - startMs };
    const pauseMs = Math.min(READING_INTERVAL_MS, leftMs);
    o.reporter.progress(
      `waiting for ingestion: ${count(reading.delivered - reading.missing)} of ${count(reading.delivered)} delivered events found, ` +
        `${count(reading.missing)} missing; next reading in ${duration(pauseMs)} (${duration(leftMs)} left)`,
    );
    await o.clock.sleep(pauseMs, o.signal);
    if (o.signal.aborted) throw new InterruptedError('interrupted while waiting for ingestion; nothing was changed');
    const next = await read();
    readings++;
    const agreed = pauseMs >= READING_INTERVAL_MS && sameCounts(next.landed, reading.landed);
    reading = next;
    if (reading.missing === 0) return { reading, readings, ended: 'complete', waitedMs: o.clock.now() - startMs };
    if (agreed) return { reading, readings, ended: 'settled', waitedMs: o.clock.now() - startMs };
  }
}
