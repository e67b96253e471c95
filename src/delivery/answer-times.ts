/**
 * A sender's recent answer times (pace-controller.ts): their smoothed mean, which sets how many
 * requests the pace keeps in flight, and whether answers have grown far slower than the fastest
 * recent one (a server that slows down instead of refusing). Pure.
 */

/** Answer times remembered for the fastest recent answer. */
const SAMPLES = 50;
/** Answers needed before any is called slow. */
const LEAST_SAMPLES = 5;

export class AnswerTimes {
  private readonly samples: number[] = [];
  /** The smoothed answer time, in ms; undefined until the first answer. */
  smoothMs: number | undefined;

  constructor(
    private readonly slowFactor: number,
    private readonly slowSlackMs: number,
  ) {}

  /** Records an answer time; true when answers are now on average `slowFactor` times slower than the fastest recent one, plus `slowSlackMs`. */
  slowAfter(latencyMs: number): boolean {
    this.samples.push(latencyMs);
    if (this.samples.length > SAMPLES) this.samples.shift();
    this.smoothMs = this.smoothMs === undefined ? latencyMs : this.smoothMs * 0.8 + latencyMs * 0.2;
    if (this.samples.length < LEAST_SAMPLES) return false;
    return this.smoothMs > Math.min(...this.samples) * this.slowFactor + this.slowSlackMs;
  }
}
