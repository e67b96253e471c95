/** The progress line of an import run. */
import type { DeliveryStats } from '../delivery/delivery-run.js';
import { count, duration, plural, rate } from '../util/format.js';
import { paceText } from './pace-text.js';

export interface ProgressState {
  project: string;
  /** Events of this project settled (delivered or dead-lettered) before this run. */
  settledBefore: number;
  /** Events staged in the file, all kinds. */
  totalStaged: number;
  /** Events this run means to settle (pending, or the sample). */
  runTarget: number;
  /** The run sends a sample (import --sample): its size is the total shown. */
  sample?: boolean;
}

/**
 * "test: 12,000/50,000 sent (24%) · 2,812 events/s · pace 2,870 ev/s, held by the server's 429s ·
 * ETA 14s · 3 retries" (no pace when nothing paces the run); for a sample, "test: sample
 * 600/1,000 sent (60%) · ...".
 */
export function progressLine(state: ProgressState, stats: DeliveryStats, nowMs: number): string {
  const settledNow = stats.delivered + stats.deadLettered;
  const [done, total, label] = state.sample ? [settledNow, state.runTarget, 'sample '] : [state.settledBefore + settledNow, state.totalStaged, ''];
  const percent = total === 0 ? 100 : Math.floor((done * 100) / total);
  const perSec = rate(stats.delivered, nowMs - stats.startedMs);
  const left = Math.max(0, state.runTarget - settledNow);
  const eta = perSec > 0 ? duration((left / perSec) * 1000) : '?';
  const pace = paceText(stats.pace);
  return `${state.project}: ${label}${count(done)}/${count(total)} sent (${percent}%) · ${count(perSec)} events/s${pace === undefined ? '' : ` · ${pace}`} · ETA ${eta} · ${plural(stats.retries, 'retry', 'retries')}`;
}
