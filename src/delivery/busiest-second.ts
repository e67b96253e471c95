/**
 * The busiest second of a sender's recent requests or answers, the rate a refusal shows the
 * server's limit to be (pace-controller.ts). Pure.
 */

/** Events sent or accepted at a time. */
export interface Tally {
  atMs: number;
  events: number;
}

/** The span in which the busiest second is looked for. */
const MEASURE_MS = 2000;

/**
 * The most events of the tallies in any one second of the last MEASURE_MS (drops older tallies):
 * a server refusing once its window is full took about its limit in its busiest second, and whole
 * requests counted over one fixed second could miss one.
 */
export function busiestSecond(tallies: Tally[], nowMs: number): number {
  while (tallies.length > 0 && tallies[0]!.atMs <= nowMs - MEASURE_MS) tallies.shift();
  let most = 0;
  for (let i = 0; i < tallies.length; i++) {
    let events = 0;
    for (let j = i; j < tallies.length && tallies[j]!.atMs < tallies[i]!.atMs + 1000; j++) events += tallies[j]!.events;
    most = Math.max(most, events);
  }
  return most;
}

/**
 * The events of the tallies in the second before `nowMs` (drops tallies older than MEASURE_MS):
 * cheap enough for each answer, where the busiest second is worked out at each refusal only.
 */
export function takenWithin(tallies: Tally[], nowMs: number): number {
  while (tallies.length > 0 && tallies[0]!.atMs <= nowMs - MEASURE_MS) tallies.shift();
  let events = 0;
  for (let i = tallies.length - 1; i >= 0 && tallies[i]!.atMs > nowMs - 1000; i--) events += tallies[i]!.events;
  return events;
}
