/** `migrate copy-config --from old --to new`: the project's configuration objects copied to another project. */
import type { Command } from 'commander';
import { loadConfig } from '../../../config/load-config.js';
import { resolveManagement } from '../../../config/resolve-project.js';
import { copyConfig, type CopyConfigResult } from '../../../copy-config/copy-config.js';
import { parseKinds } from '../../../copy-config/config-kinds.js';
import { RemoteError, UsageError } from '../../../errors.js';
import { createHttpClient } from '../../../http/http-client.js';
import { managementApi } from '../../../management/management-api.js';
import { createManagementClient } from '../../../management/management-client.js';
import { systemClock } from '../../../util/clock.js';
import { configOption, jsonOption, stagingOption } from '../../options/common-options.js';
import { warn } from '../../terminal/output.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentCopyReport } from './copy-config-output.js';

interface CopyConfigFlags {
  from: string;
  to: string;
  only?: string;
  dryRun?: boolean;
  keepFlagState?: boolean;
  overwrite?: boolean;
  state?: string;
  staging: string;
  config?: string;
  json?: boolean;
  quiet?: boolean;
}

async function run(flags: CopyConfigFlags): Promise<CopyConfigResult> {
  const { kinds, unknown } = parseKinds(flags.only);
  if (unknown.length > 0)
    throw new UsageError(`--only: unknown kind ${unknown.map((name) => `"${name}"`).join(', ')}`, ['Kinds: actions, cohorts, flags, insights, dashboards, annotations, experiments, surveys.']);
  const config = loadConfig(flags.config);
  const http = createHttpClient({ connections: 4 });
  const client = (name: string) =>
    managementApi(
      createManagementClient({
        target: { ...resolveManagement(config, name), configFile: flags.config },
        http,
        onThrottle: (waitMs) => warn(`The API is throttling requests; waiting ${Math.ceil(waitMs / 1000)} s as it asks.`),
      }),
    );
  try {
    const sides = { source: client(flags.from), dest: client(flags.to), clock: systemClock };
    const input = { kinds, statePath: flags.state ?? flags.staging, options: { dryRun: flags.dryRun === true, keepFlagState: flags.keepFlagState === true, overwrite: flags.overwrite === true } };
    return await withTerminal({ quiet: flags.json === true || flags.quiet === true, interrupts: true }, (reporter, signal) => copyConfig(input, sides, reporter, signal));
  } finally {
    await http.close();
  }
}

export function registerCopyConfig(program: Command): void {
  const command = program
    .command('copy-config')
    .description("copy a project's actions, cohorts, flags, insights, dashboards, annotations, experiments and surveys to another project")
    .requiredOption('--from <project>', 'the project to copy from (in the config, with a personal API key)')
    .requiredOption('--to <project>', 'the project to copy into (in the config, with a personal API key)')
    .option('--only <kinds>', 'copy only these kinds, comma-separated (actions,cohorts,flags,insights,dashboards,annotations,experiments,surveys)')
    .option('--dry-run', 'print the plan: what would be created, updated, left alone or skipped, and why; change nothing')
    .option('--keep-flag-state', 'copy feature flags as active as they are in the source (default: every copied flag arrives inactive)')
    .option('--overwrite', 'also update objects changed by hand in the destination since they were copied')
    .option('--state <file>', 'the file that records what was copied (default: the staging file)')
    .option('-q, --quiet', 'no progress output');
  stagingOption(command);
  configOption(command);
  jsonOption(command).action(async (flags: CopyConfigFlags) => {
    const result = await run(flags);
    presentCopyReport(result, flags.json === true);
    if (result.verdict === 'nothing') throw new RemoteError('nothing was copied: every object was skipped, refused or failed (see above)');
    if (result.verdict === 'partial' && result.items.some((item) => item.outcome === 'failed'))
      throw new RemoteError('some objects could not be copied (see above); fix them and run the same command again');
  });
}
