/**
 * Whether a verify run failed, as a value: events PostHog accepted and does not hold, not
 * re-sent by this run, are the error that exits 9. The command prints the result, then throws
 * what this returns (the one way every command signals failure, see CONTRIBUTING.md).
 */
import { EventsMissingError } from '../errors.js';
import { shellWord } from '../import/import-rules.js';
import { plural } from '../util/format.js';
import { migrateCommand, type CommandPlace } from '../util/migrate-command.js';
import type { VerifyResult } from './verify-project.js';

export function verifyFailure(r: VerifyResult, place: CommandPlace): EventsMissingError | undefined {
  if (r.summary.complete || (r.resend !== null && r.resend.requeued > 0 && r.resend.run?.outcome === 'done')) return undefined;
  const project = shellWord(r.project);
  return new EventsMissingError(`${plural(r.summary.shortDays, 'day')} short by ${plural(r.summary.missing, 'event')}: PostHog accepted them and does not hold them`, [
    `If the import ended minutes ago, PostHog may still be ingesting: ${migrateCommand(`verify --project ${project} --wait 10m`, place)}`,
    `To re-send exactly the missing events (same uuids, nothing can double): ${migrateCommand(`verify --project ${project} --resend-missing`, place)}`,
  ]);
}
