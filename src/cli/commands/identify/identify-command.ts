/**
 * `migrate identify-users` and `migrate identify-groups`: stage person updates ($identify) and
 * group updates ($groupidentify) from a users or groups file, with the same validation,
 * rejects, stable uuids and idempotent re-runs as export-source (whose run and output they
 * share). Import sends them before the events, so each event is stored with its person's and
 * groups' properties, and the users file's values again after events carrying older ones.
 */
import { Option, type Command } from 'commander';
import { integerOption, jsonOption, quietOption, stagingOption } from '../../options/common-options.js';
import { geoipOption } from '../../options/geoip-option.js';
import { sayZoneNote } from '../../options/event-rule-options.js';
import { readingOptions } from '../../options/reading-options.js';
import { timeOptions } from '../../options/time-options.js';
import { runStaging } from '../export-source/run-staging.js';
import { toIdentifyGroupsInput, toIdentifyUsersInput, type IdentifyOptions } from './identify-input.js';

function common(command: Command, what: 'users' | 'groups', columnHelp: string): Command {
  command
    .argument('<files...>', `${what} files (.gz read transparently); - reads standard input`)
    .addOption(
      new Option('--from <format>', "file format; mixpanel-profiles: Mixpanel's profile JSON ($distinct_id, $properties)").choices(['csv', 'jsonl', 'mixpanel-profiles']).makeOptionMandatory(),
    )
    .option('--timezone <zone>', 'IANA zone for timestamps written without one (otherwise rejected)')
    .option('--no-infer-types', 'CSV: keep every cell as text')
    .option('--workers <n>', "worker threads for the run's files, 0 = in-process", integerOption('--workers'));
  timeOptions(command);
  geoipOption(command);
  readingOptions(command, columnHelp);
  stagingOption(command);
  quietOption(command);
  return jsonOption(command);
}

export function registerIdentify(program: Command): void {
  common(
    program
      .command('identify-users')
      .description('stage one $identify per user: distinct_id, optional anon_distinct_id and timestamp; other columns go to $set')
      .option('--set-once <columns>', 'comma-separated columns that go into $set_once (never overwrite)'),
    'users',
    'read distinct_id, anon_distinct_id, timestamp or uuid from another column (CSV header, or JSON path), e.g. distinct_id=user_id (repeatable)',
  ).action((files: string[], options: IdentifyOptions) => {
    const input = toIdentifyUsersInput(files, options, Date.now());
    sayZoneNote(options);
    return runStaging(input, options);
  });

  common(
    program
      .command('identify-groups')
      .description('stage one $groupidentify per group: group_key required; other columns go to $group_set')
      .requiredOption('--group-type <type>', 'the group type, e.g. company')
      .option('--key-column <column>', 'the column holding the group key', 'group_key'),
    'groups',
    'read timestamp or uuid from another column (CSV header, or JSON path), e.g. timestamp=updated_at (repeatable)',
  ).action((files: string[], options: IdentifyOptions) => {
    const input = toIdentifyGroupsInput(files, options, Date.now());
    sayZoneNote(options);
    return runStaging(input, options);
  });
}
