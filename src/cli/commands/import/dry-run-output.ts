/** What `import --dry-run` prints: what a run would send, as text or JSON. */
import type { DryRunReport } from '../../../import/dry-run.js';
import { bytes, count, plural } from '../../../util/format.js';
import { print, printJson } from '../../terminal/output.js';

export function presentDryRun(report: DryRunReport, json: boolean): void {
  if (json) {
    printJson(report);
    return;
  }
  const r = report;
  print(`Dry run: nothing was sent.`);
  print(`${r.project} (${r.host}): ${plural(r.pending, 'event')} pending; this run would send ${plural(r.events, 'event')} in ${plural(r.chunks, 'chunk')}.`);
  print(`  ${bytes(r.bodyBytes)} of JSON before compression (largest chunk ${bytes(r.largestChunkBytes)}); gzip ${r.gzip ? 'on' : 'off'}.`);
  print(`  Concurrency ${r.concurrency}, max rate ${r.maxRatePerSec === 0 ? 'none' : `${count(r.maxRatePerSec)} events/s`}.`);
  if (r.samplePayload !== undefined) {
    print('Sample payload (first events of the first chunk):');
    print(JSON.stringify(r.samplePayload, null, 2));
  }
}
