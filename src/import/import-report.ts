/** What import prints: the progress line, the final summary, the dry-run report. */
import { bytes, count, duration, plural, rate } from '../cli/format.js';
import { print, printJson } from '../cli/output.js';
import type { DeliveryStats } from '../delivery/delivery-run.js';

export interface ProgressState {
  project: string;
  /** Events of this project settled (delivered or dead-lettered) before this run. */
  settledBefore: number;
  /** Events staged in the file, all kinds. */
  totalStaged: number;
  /** Events this run means to settle (pending, or the sample). */
  runTarget: number;
}

/** "test: 12,000/50,000 sent (24%) · 8,512 events/s · ETA 4s · 3 retries" */
export function progressLine(state: ProgressState, stats: DeliveryStats, nowMs: number): string {
  const settledNow = stats.delivered + stats.deadLettered;
  const sent = state.settledBefore + settledNow;
  const percent = state.totalStaged === 0 ? 100 : Math.floor((sent * 100) / state.totalStaged);
  const perSec = rate(stats.delivered, nowMs - stats.startedMs);
  const left = Math.max(0, state.runTarget - settledNow);
  const eta = perSec > 0 ? duration((left / perSec) * 1000) : '?';
  return `${state.project}: ${count(sent)}/${count(state.totalStaged)} sent (${percent}%) · ${count(perSec)} events/s · ETA ${eta} · ${plural(stats.retries, 'retry', 'retries')}`;
}

/** A run's counters (see DeliveryStats) with the project's state after it. */
export interface RunSummary extends Omit<DeliveryStats, 'startedMs'> {
  project: string;
  host: string;
  outcome: 'done' | 'interrupted' | 'stopped';
  elapsedMs: number;
  eventsPerSec: number;
  /** Project-wide after the run. */
  projectDelivered: number;
  projectDeadLetters: number;
  pending: number;
  totalStaged: number;
  sample: number | null;
}

export function printRunSummary(summary: RunSummary, json: boolean, next: string | undefined): void {
  if (json) {
    printJson(summary);
    return;
  }
  const s = summary;
  print(
    `${s.project} (${s.host}): ${plural(s.delivered, 'event')} delivered in ${plural(s.chunks, 'chunk')} ` +
      `(${plural(s.requests, 'request')}, ${plural(s.retries, 'retry', 'retries')}, ${bytes(s.wireBytes)} sent) ` +
      `in ${(s.elapsedMs / 1000).toFixed(1)} s, ${count(s.eventsPerSec)} events/s.`,
  );
  if (s.deadLettered > 0) print(`  ${plural(s.deadLettered, 'event')} refused by the server and kept as dead letters (see \`migrate status\`).`);
  if (s.abandoned > 0) print(`  ${plural(s.abandoned, 'event')} in flight were abandoned; they are still pending and will be re-sent with the same uuids.`);
  print(`  Project ${s.project}: ${count(s.projectDelivered)} of ${count(s.totalStaged)} staged events delivered, ${count(s.pending)} pending, ${plural(s.projectDeadLetters, 'dead letter')}.`);
  if (s.outcome === 'done' && s.sample !== null && s.pending > 0) {
    print(`  This was a sample of at most ${count(s.sample)} events; the rest stays pending.`);
  }
  if (next !== undefined && s.outcome === 'done') print(`Next: ${next}`);
}

export interface DryRunReport {
  project: string;
  host: string;
  pending: number;
  events: number;
  chunks: number;
  bodyBytes: number;
  largestChunkBytes: number;
  concurrency: number;
  maxRatePerSec: number;
  gzip: boolean;
  samplePayload: unknown;
}

export function printDryRun(report: DryRunReport, json: boolean): void {
  if (json) {
    printJson(report);
    return;
  }
  const r = report;
  print(`Dry run: nothing was sent.`);
  print(`${r.project} (${r.host}): ${count(r.pending)} events pending; this run would send ${plural(r.events, 'event')} in ${plural(r.chunks, 'chunk')}.`);
  print(`  ${bytes(r.bodyBytes)} of JSON before compression (largest chunk ${bytes(r.largestChunkBytes)}); gzip ${r.gzip ? 'on' : 'off'}.`);
  print(`  Concurrency ${r.concurrency}, max rate ${r.maxRatePerSec === 0 ? 'none' : `${count(r.maxRatePerSec)} events/s`}.`);
  if (r.samplePayload !== undefined) {
    print('Sample payload (first events of the first chunk):');
    print(JSON.stringify(r.samplePayload, null, 2));
  }
}
