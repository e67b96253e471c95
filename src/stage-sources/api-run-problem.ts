/**
 * What a source API run that ended ends with, when it did not achieve what was asked: ranges
 * that failed (a re-run retries them), a source that gave no data at all (misconfigured, or
 * the wrong window), every row rejected. Such a run never exits 0. Pure.
 */
import { InputError, RemoteError, type MigrateError } from '../errors.js';
import { plural } from '../util/format.js';
import { migrateCommand } from '../util/migrate-command.js';
import type { StageApiResult } from './api-ranges-loop.js';

export function apiRunProblem(result: StageApiResult): MigrateError | undefined {
  const { ledger, totals, window, vendor, unit } = result;
  const place = { staging: result.staging };
  if (ledger.failed > 0) {
    return new RemoteError(`${plural(ledger.failed, 'range')} of ${window.start} to ${window.end} failed; nothing of them was staged`, [
      `Run the same command again: only the ranges not done are fetched. \`${migrateCommand('status', place)}\` lists them with their errors.`,
    ]);
  }
  const failedPart = result.people?.find((part) => part.status === 'failed');
  if (failedPart !== undefined) {
    if (vendor === 'Mixpanel') {
      return new RemoteError(`Mixpanel profiles (${failedPart.part}): ${failedPart.error ?? 'failed'}; the pages staged before are kept`, [
        'Run the same command again: the listing goes on after the last page staged, and windows done are not fetched again.',
      ]);
    }
    return new RemoteError(`PostHog ${failedPart.part}: ${failedPart.error ?? 'failed'}; nothing of them was staged`, [
      'Run the same command again: the persons and groups are read again, and windows done are not.',
    ]);
  }
  if (result.noData) {
    return new InputError(`${vendor} gave no data for any ${unit} from ${window.start} to ${window.end}`, [
      vendor === 'PostHog'
        ? "If it holds events there, check the project's apiHost and projectId in the config; nothing was recorded as empty, so the next run asks again."
        : `If it holds events there, check the project and region in the config (sources.${vendor.toLowerCase()}); nothing was recorded as empty, so the next run asks again.`,
    ]);
  }
  const kept = totals.staged + totals.alreadyStaged + totals.duplicates + totals.skipped;
  if (totals.rowsRead > 0 && kept === 0) {
    const every = totals.rowsRead === 1 ? 'the one row fetched was' : `every one of the ${plural(totals.rowsRead, 'row')} fetched was`;
    return new InputError(`${every} rejected; nothing was staged`, [`See why with \`${migrateCommand('rejects', place)}\`.`]);
  }
  return undefined;
}
