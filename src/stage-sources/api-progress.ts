/**
 * What a source API run tells the person running it while it goes: the range being
 * downloaded or staged, how much of the window is done, a wait for the API's rate limit (a
 * wait, not an error), retries and splits as notices, failed ranges as warnings.
 */
import type { Reporter } from '../reporter.js';
import type { ReadCounts } from '../staging/source-reads.js';
import { bytes, count, duration } from '../util/format.js';

export class ApiProgress {
  private unitsDone = 0;
  private readonly unitsBefore: number;
  private readonly startMs: number | undefined;

  constructor(
    private readonly reporter: Reporter,
    private readonly vendor: string,
    private readonly unit: 'day' | 'hour',
    private readonly totalUnits: number,
    unitsDone: number,
    /** The run's clock, for an estimate of the time left from the rate achieved so far. */
    private readonly nowMs?: () => number,
  ) {
    this.unitsDone = unitsDone;
    this.unitsBefore = unitsDone;
    this.startMs = nowMs?.();
  }

  /** A range as people read it: `2024-03-05`, or `20240305T00-20240305T23`. */
  label(range: { start: string; end: string }): string {
    return `${this.vendor} ${range.start === range.end ? range.start : `${range.start}-${range.end}`}`;
  }

  /** Units of the window now fetched. */
  fetched(units: number): void {
    this.unitsDone += units;
  }

  private tally(): string {
    return `${count(this.unitsDone)} of ${count(this.totalUnits)} ${this.unit}s done${this.timeLeft()}`;
  }

  /** From the rate of this run (waits for the rate limit included), never from a guess. */
  private timeLeft(): string {
    const ran = this.unitsDone - this.unitsBefore;
    if (this.nowMs === undefined || this.startMs === undefined || ran <= 0) return '';
    const left = ((this.nowMs() - this.startMs) / ran) * (this.totalUnits - this.unitsDone);
    return left > 0 ? `, about ${duration(left)} left` : '';
  }

  waiting(waitMs: number): void {
    const seconds = Math.ceil(waitMs / 1000);
    this.reporter.progress(`waiting ${seconds < 60 ? `${seconds} s` : duration(waitMs)} for ${this.vendor}'s rate limit (${this.tally()})`);
  }

  downloading(range: { start: string; end: string }, received: number): void {
    this.reporter.progress(`${this.label(range)}: downloading, ${bytes(received)} (${this.tally()})`);
  }

  reading(range: { start: string; end: string }, rows: number, expected: number): void {
    this.reporter.progress(`${this.label(range)}: ${count(rows)} of ${count(expected)} events read (${this.tally()})`);
  }

  staging(range: { start: string; end: string }, counts: ReadCounts): void {
    this.reporter.progress(`${this.label(range)}: ${count(counts.rowsRead)} rows, ${count(counts.staged)} staged (${this.tally()})`);
  }

  /** A line of its own on the progress line (the pages of a profile listing). */
  line(text: string): void {
    this.reporter.progress(text);
  }

  notice(text: string): void {
    this.reporter.notice(text);
  }

  warn(text: string): void {
    this.reporter.warn(text);
  }
}
