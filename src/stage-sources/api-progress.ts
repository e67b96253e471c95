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

  constructor(
    private readonly reporter: Reporter,
    private readonly vendor: string,
    private readonly unit: 'day' | 'hour',
    private readonly totalUnits: number,
    unitsDone: number,
  ) {
    this.unitsDone = unitsDone;
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
    return `${count(this.unitsDone)} of ${count(this.totalUnits)} ${this.unit}s done`;
  }

  waiting(waitMs: number): void {
    const seconds = Math.ceil(waitMs / 1000);
    this.reporter.progress(`waiting ${seconds < 60 ? `${seconds} s` : duration(waitMs)} for ${this.vendor}'s rate limit (${this.tally()})`);
  }

  downloading(range: { start: string; end: string }, received: number): void {
    this.reporter.progress(`${this.label(range)}: downloading, ${bytes(received)} (${this.tally()})`);
  }

  staging(range: { start: string; end: string }, counts: ReadCounts): void {
    this.reporter.progress(`${this.label(range)}: ${count(counts.rowsRead)} rows, ${count(counts.staged)} staged (${this.tally()})`);
  }

  notice(text: string): void {
    this.reporter.notice(text);
  }

  warn(text: string): void {
    this.reporter.warn(text);
  }
}
