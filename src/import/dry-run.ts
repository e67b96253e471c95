/** `import --dry-run`: builds the chunks a run would send and reports them; sends nothing. */
import { leadingEventsJson } from '../delivery/chunker.js';
import { chunkLimits, chunkStream } from '../delivery/chunk-stream.js';
import type { DeliverySettings } from '../delivery/delivery-options.js';
import { batchBody, bodyOverheadBytes } from '../delivery/event-encoding.js';
import { sendOrder } from '../delivery/send-order.js';
import { PendingEvents, totalStaged, type ProjectRecord } from '../staging/delivery-store.js';
import type { StagingStore } from '../staging/staging-store.js';

/** What a dry run would send. */
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

/** Stands in for the key in the sample payload, which is printed. */
const KEY_PLACEHOLDER = '<project API key>';
const SAMPLE_EVENTS = 2;

export function dryRun(
  store: StagingStore,
  target: { name: string; host: string; apiKey: string },
  project: ProjectRecord | undefined,
  settings: DeliverySettings,
  sample: number | undefined,
): DryRunReport {
  const limits = chunkLimits(settings, bodyOverheadBytes(target.apiKey));
  const report: DryRunReport = {
    project: target.name,
    host: target.host,
    pending: totalStaged(store) - (project ? project.delivered + project.deadLetters : 0),
    events: 0,
    chunks: 0,
    bodyBytes: 0,
    largestChunkBytes: 0,
    concurrency: settings.concurrency,
    maxRatePerSec: settings.maxRate,
    gzip: settings.gzip,
    samplePayload: undefined,
  };
  for (const chunk of chunkStream(new PendingEvents(store, project?.id ?? -1, 1, sendOrder(settings.peopleLast)), limits, sample)) {
    if (report.chunks === 0) report.samplePayload = JSON.parse(batchBody(KEY_PLACEHOLDER, leadingEventsJson(chunk, SAMPLE_EVENTS)).toString());
    report.chunks++;
    report.events += chunk.seqs.length;
    report.bodyBytes += chunk.bytes;
    report.largestChunkBytes = Math.max(report.largestChunkBytes, chunk.bytes);
  }
  return report;
}
