/**
 * What a source API run that ended ends with, when it did not achieve what was asked: ranges
 * that failed (a re-run retries them), a source that gave no data at all (misconfigured, or
 * the wrong window), every row rejected. Such a run never exits 0. Pure.
 */
import { InputError, RemoteError, type MigrateError } from '../errors.js';
import type { StageApiResult } from './api-ranges-loop.js';

export function apiRunProblem(result: StageApiResult): MigrateError | undefined {
  const { ledger, totals, window, vendor, unit } = result;
  if (ledger.failed > 0) {
    return new RemoteError(`${ledger.failed} range${ledger.failed === 1 ? '' : 's'} of ${window.start} to ${window.end} failed; nothing of them was staged`, [
      'Run the same command again: only the ranges not done are fetched. `migrate status` lists them with their errors.',
    ]);
  }
  if (result.noData) {
    return new InputError(`${vendor} gave no data for any ${unit} from ${window.start} to ${window.end}`, [
      `If it holds events there, check the project and region in the config (sources.${vendor.toLowerCase()}); nothing was recorded as empty, so the next run asks again.`,
    ]);
  }
  const kept = totals.staged + totals.alreadyStaged + totals.duplicates + totals.skipped;
  if (totals.rowsRead > 0 && kept === 0) {
    return new InputError(`every one of the ${totals.rowsRead} rows fetched was rejected; nothing was staged`, ['See why with `migrate rejects`.']);
  }
  return undefined;
}
