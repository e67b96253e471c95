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
 * The events of the tallies per second over the last MEASURE_MS (drops older tallies): cheap
 * enough for each answer, where the busiest second is worked out at each refusal only; over two
 * seconds, so that one request more or less in a window moves it by half a request's events.
 */
export function takenPerSec(tallies: Tally[], nowMs: number): number {
  while (tallies.length > 0 && tallies[0]!.atMs <= nowMs - MEASURE_MS) tallies.shift();
  let events = 0;
  for (const t of tallies) events += t.events;
  return (events * 1000) / MEASURE_MS;
}
