/** What import and resume print after a run: the summary (text or JSON), and for a run that did not finish, the same summary before its error. */
import { paceSummaryText } from '../../../import/pace-text.js';
import { UnfinishedRunError, type RunSummary } from '../../../import/run-summary.js';
import { bytes, count, plural, took } from '../../../util/format.js';
import { migrateCommand, type CommandPlace } from '../../../util/migrate-command.js';
import { print, printJson } from '../../terminal/output.js';

/** `place`: the staging file and config of the run, named in the commands suggested. */
export function presentRun(summary: RunSummary, json: boolean, next: string | undefined, place: CommandPlace = {}): void {
  if (json) {
    printJson(summary);
    return;
  }
  const s = summary;
  print(
    `${s.project} (${s.host}): ${plural(s.delivered, 'event')} delivered in ${plural(s.chunks, 'chunk')} ` +
      `(${plural(s.requests, 'request')}, ${plural(s.retries, 'retry', 'retries')}, ${bytes(s.wireBytes)} sent) ` +
      `${took(s.elapsedMs, s.delivered, 'events')}.`,
  );
  if (s.requests > 0) print(`  Pace: ${paceSummaryText(s)}.`);
  if (s.deadLettered > 0) print(`  ${plural(s.deadLettered, 'event')} refused by the server and kept as dead letters (see \`${migrateCommand('status', place)}\`).`);
  if (s.abandoned > 0) print(`  ${plural(s.abandoned, 'event')} in flight were abandoned; they are still pending and will be re-sent with the same uuids.`);
  print(`  Project ${s.project}: ${count(s.projectDelivered)} of ${plural(s.totalStaged, 'staged event')} delivered, ${count(s.pending)} pending, ${plural(s.projectDeadLetters, 'dead letter')}.`);
  if (s.peopleLast) print('  Sent with --people-last: events before their person and group updates, so their person and group properties stay empty.');
  else if (s.reassertions > 0) {
    print(`  ${plural(s.reassertions, 'users-file update')} sent again after the events (re-assertions), as events carried older $set values: each person ends with the users file's values.`);
  }
  if (s.outcome === 'done' && s.sample !== null && s.pending > 0) {
    print(`  This was a sample of at most ${plural(s.sample, 'event')}; the rest stays pending.`);
  }
  if (next !== undefined && s.outcome === 'done') print(`Next: ${next}`);
}

/** Prints an unfinished run's summary, then rethrows: main prints the error and exits with its code. */
export function presentUnfinished(json: boolean, place: CommandPlace = {}): (error: unknown) => never {
  return (error) => {
    if (error instanceof UnfinishedRunError) presentRun(error.summary, json, undefined, place);
    throw error;
  };
}
