/**
 * export-source's disk check (the machine check of doctor, before staging): the sources about
 * to be staged against the free space next to the staging file. Under twice the estimate it
 * warns; under the estimate it refuses before the first row, when the estimate is certain.
 */
import { PreflightError } from '../errors.js';
import type { Reporter } from '../reporter.js';
import { stagedSourceSizes } from '../staging/staged-facts.js';
import type { StagingStore } from '../staging/staging-store.js';
import { bytes } from '../util/format.js';
import { roomFor, stagingNeed, type SourceSize } from '../machine/disk-estimate.js';
import { diskFacts } from '../machine/disk-facts.js';

export async function checkStagingRoom(store: StagingStore, sources: readonly SourceSize[], reporter: Reporter): Promise<void> {
  const need = stagingNeed(sources, stagedSourceSizes(store));
  if (need.bytes === 0) return;
  const disk = await diskFacts(store.path);
  if ('error' in disk) {
    reporter.warn(`warning: the free space next to the staging file could not be read (${disk.error}); staging these sources needs about ${bytes(need.bytes)}`);
    return;
  }
  const room = roomFor(disk.freeBytes, need.bytes);
  if (room === 'enough') return;
  const found = `${bytes(disk.freeBytes)} free next to the staging file (${disk.path}), and staging these sources needs about ${bytes(need.bytes)}`;
  const fix = 'Free disk space there, or put the staging file on a larger disk (--staging <file>).';
  if (room === 'short' && need.exact) throw new PreflightError(`${found}: the disk would fill up; nothing was staged`, [fix]);
  const guess = need.exact ? '' : ' (a guess: compressed sources grow when read)';
  reporter.warn(`warning: ${found}${guess}${room === 'tight' ? ', less than twice the need' : ''}. ${fix}`);
}
