/** `migrate export-source`: reads source files, or a source's export API, into the staging file. */
import { Option, type Command } from 'commander';
import { apiSourceNames, isApiSource } from '../../../source-apis/api-sources.js';
import { formatNames } from '../../../sources/formats.js';
import { DEFAULT_SEGMENT_GROUP_TYPE } from '../../../sources/vendors/segment.js';
import { collect, integerOption, jsonOption, quietOption, stagingOption } from '../../options/common-options.js';
import { geoipOption } from '../../options/geoip-option.js';
import { sayZoneNote } from '../../options/event-rule-options.js';
import { readingOptions } from '../../options/reading-options.js';
import { rowSelectionOptions } from '../../options/row-selection-options.js';
import { timeOptions } from '../../options/time-options.js';
import { apiSourceFlags } from './api-source-flags.js';
import { bucketFlags } from '../../options/bucket-options.js';
import { toStageApiInput } from './api-source-input.js';
import { toExportSourceInput, type ExportSourceOptions } from './export-source-input.js';
import { runApiStaging } from './run-api-staging.js';
import { runStaging } from './run-staging.js';

export function registerExportSource(program: Command): void {
  const command = program
    .command('export-source')
    .description("read source files, or a source's export API, into the staging file (validated, mapped, with stable uuids)")
    .argument(
      '[files...]',
      'source files, directories or globs (.gz and .zip read as streams), or s3:// and gs:// prefixes, keys or globs; - reads standard input, and pipes such as <(zcat x.gz) work; none for a source API',
    )
    .addOption(new Option('--from <format>', 'source format, or a source API (mixpanel-api, amplitude-api: see --start)').choices([...formatNames(), ...apiSourceNames()]).makeOptionMandatory())
    .option('--map <file>', 'mapping file: event and property renames (extends the defaults)')
    .option('--timezone <zone>', 'IANA zone for timestamps written without one (otherwise rejected); mixpanel: the project time zone')
    .option('--group <type=column>', 'attach events to groups: $groups.<type> from that column or property (repeatable)', collect, [] as string[])
    .option('--segment-group-type <type>', `segment: the group type of group calls and context.groupId (default ${DEFAULT_SEGMENT_GROUP_TYPE})`)
    .option('--no-infer-types', 'CSV: keep every cell as text (default: 42 and true become a number and a boolean)')
    .option('--no-identity-links', "amplitude, mixpanel: stage no $identify linking a device's anonymous events to its user")
    .option('--max-users-per-device <n>', 'identity links: a device seen with more users than this (a kiosk) is not linked (default 5)', integerOption('--max-users-per-device', 1))
    .option('--sessionize <minutes>', 'give events without a UUIDv7 $session_id sessions: a new one after this many minutes without an event (30 is usual)', integerOption('--sessionize', 1))
    .option('--strict-time', 'amplitude: reject an event without event_time rather than take its client_event_time or server_received_time')
    .option('--workers <n>', "worker threads for the run's files, 0 = in-process (default: one per core but one when the files come to 8 MiB or more)", integerOption('--workers'));
  timeOptions(command);
  rowSelectionOptions(command);
  geoipOption(command);
  readingOptions(command, 'read event, distinct_id, timestamp, uuid or properties from another field: a CSV header, or a dotted path in JSON such as properties.user.id (repeatable)');
  apiSourceFlags(command);
  bucketFlags(command);
  stagingOption(command);
  quietOption(command);
  jsonOption(command);
  command.action(async (files: string[], options: ExportSourceOptions) => {
    if (isApiSource(options.from)) {
      const input = await toStageApiInput(files, options, Date.now());
      sayZoneNote(options);
      await runApiStaging(input, options);
    } else {
      const input = await toExportSourceInput(files, options, Date.now());
      sayZoneNote(options);
      await runStaging(input, options);
    }
  });
}
