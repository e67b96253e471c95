/** `verify --wait` on a test clock: readings a minute apart until complete, settled or out of time. */
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { readUntilSettled, type Reading } from '../../src/verify/wait-for-landing.js';
import { recordingReporter } from '../helpers/recording-reporter.js';
import { testClock } from '../helpers/test-clock.js';

function readings(...missing: number[]): () => Promise<Reading> {
  let i = 0;
  return async () => {
    const m = missing[Math.min(i++, missing.length - 1)]!;
    return { landed: new Map([['1', 100 - m]]), missing: m, delivered: 100 };
  };
}

const running = () => new AbortController().signal;

describe('readUntilSettled', () => {
  it('reads once when everything landed, or when no wait was asked', async () => {
    const clock = testClock();
    expect(await readUntilSettled(readings(0), { waitMs: 600_000, clock, signal: running(), reporter: recordingReporter() })).toMatchObject({ ended: 'complete', readings: 1 });
    expect(await readUntilSettled(readings(5), { waitMs: 0, clock, signal: running(), reporter: recordingReporter() })).toMatchObject({ ended: 'no-wait', readings: 1 });
    expect(clock.waits).toEqual([]);
  });

  it('reads every minute until everything landed, showing progress', async () => {
    const clock = testClock();
    const reporter = recordingReporter();
    const outcome = await readUntilSettled(readings(30, 10, 0), { waitMs: 600_000, clock, signal: running(), reporter });
    expect(outcome).toMatchObject({ ended: 'complete', readings: 3, waitedMs: 120_000 });
    expect(outcome.reading.missing).toBe(0);
    expect(clock.waits).toEqual([60_000, 60_000]);
    expect(reporter.progressLines[0]).toBe('waiting for ingestion: 70 of 100 delivered events found, 30 missing; next reading in 1m00s (10m00s left)');
  });

  it('stops when two readings a minute apart agree: what is missing then stays missing', async () => {
    const clock = testClock();
    const outcome = await readUntilSettled(readings(30, 7, 7, 0), { waitMs: 600_000, clock, signal: running(), reporter: recordingReporter() });
    expect(outcome).toMatchObject({ ended: 'settled', readings: 3, waitedMs: 120_000 });
    expect(outcome.reading.missing).toBe(7);
  });

  it('stops when the time is up; the last pause is what is left', async () => {
    const clock = testClock();
    const outcome = await readUntilSettled(readings(30, 20, 10, 5), { waitMs: 150_000, clock, signal: running(), reporter: recordingReporter() });
    expect(outcome).toMatchObject({ ended: 'time-up', readings: 4, waitedMs: 150_000 });
    expect(clock.waits).toEqual([60_000, 60_000, 30_000]);
  });

  it('a short last pause does not count as a minute apart', async () => {
    const clock = testClock();
    const outcome = await readUntilSettled(readings(30, 20, 20), { waitMs: 90_000, clock, signal: running(), reporter: recordingReporter() });
    expect(outcome).toMatchObject({ ended: 'time-up', readings: 3 });
  });

  it('an interrupt ends the wait', async () => {
    const controller = new AbortController();
    const clock = testClock(undefined, () => controller.abort());
    await expect(readUntilSettled(readings(30), { waitMs: 600_000, clock, signal: controller.signal, reporter: recordingReporter() })).rejects.toBeInstanceOf(InterruptedError);
  });
});
