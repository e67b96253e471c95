/**
 * `migrate exports list|create|get|download`: exports of charts and data from the project,
 * rendered by the server. `create` waits for PostHog's answer within `--wait-ms` (and finds the
 * export it made when none comes); `create --wait` and `download` wait for the rendering.
 */
import { Option, type Command } from 'commander';
import { createExport, DEFAULT_CREATE_WAIT_MS } from '../../../management/export-create.js';
import { downloadExport } from '../../../management/export-download.js';
import { EXPORT_FORMAT_NAMES } from '../../../management/export-formats.js';
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_WAIT_TIMEOUT_MS, waitForExport, type WaitOptions } from '../../../management/export-wait.js';
import type { ManagementApi } from '../../../management/management-api.js';
import { refuseExisting } from '../../../management/save-file.js';
import { systemClock } from '../../../util/clock.js';
import { integerOption } from '../../options/common-options.js';
import { managementOptions, withManagementApi, type ManagementOptions } from '../../options/management-options.js';
import { warn } from '../../terminal/output.js';
import { exportRequest, exportsPaging, type ExportCreateOptions } from './export-args.js';
import { presentAllExports, presentCreated, presentDownloaded, presentExport, presentExportsPage, presentSavedAfterCreate } from './exports-output.js';

interface WaitFlags {
  pollIntervalMs: number;
  waitTimeoutMs: number;
}

function waitOptions(flags: WaitFlags, api: ManagementApi): WaitOptions {
  return { pollIntervalMs: flags.pollIntervalMs, timeoutMs: flags.waitTimeoutMs, clock: systemClock, target: api.client.target };
}

async function list(options: ManagementOptions & { limit?: number; offset?: number; all?: boolean }): Promise<void> {
  const paging = exportsPaging(options);
  const json = options.json === true;
  if (paging.all) presentAllExports(await withManagementApi(options, (api) => api.listAllExports()), json);
  else presentExportsPage(await withManagementApi(options, (api) => api.listExports({ limit: paging.limit, offset: paging.offset })), paging, json);
}

type CreateFlags = ManagementOptions & ExportCreateOptions & WaitFlags & { waitMs: number; wait?: boolean; output?: string; force?: boolean };

async function create(options: CreateFlags): Promise<void> {
  const request = exportRequest(options);
  const json = options.json === true;
  const overwrite = options.force ?? false;
  if (options.output !== undefined) refuseExisting(options.output, overwrite);
  const created = await withManagementApi(options, async (api) => {
    const made = await createExport(api, request, { waitMs: options.waitMs, clock: systemClock, target: api.client.target });
    presentCreated(made, json);
    let current = made.export;
    if (options.wait || options.output !== undefined) {
      if (!current.has_content) current = await waitForExport(api, current.id, waitOptions(options, api));
      if (options.output !== undefined) presentSavedAfterCreate(await downloadExport(api, current.id, { file: options.output, overwrite }, waitOptions(options, api), current), json);
    }
    return current;
  });
  presentExport(created, json);
}

async function get(id: number, options: ManagementOptions): Promise<void> {
  presentExport(await withManagementApi(options, (api) => api.getExport(id)), options.json === true);
}

async function download(id: number, options: ManagementOptions & WaitFlags & { output?: string; force?: boolean }): Promise<void> {
  const json = options.json === true;
  const saved = await withManagementApi(options, (api) => {
    if (!json) warn(`Fetching export ${id}; waiting up to ${Math.round(options.waitTimeoutMs / 1000)} s if it is still rendering.`);
    return downloadExport(api, id, { file: options.output, overwrite: options.force ?? false }, waitOptions(options, api));
  });
  presentDownloaded(id, saved, json);
}

function waitFlags(command: Command): Command {
  return command
    .option('--poll-interval-ms <ms>', 'pause between checks while the export renders', integerOption('--poll-interval-ms'), DEFAULT_POLL_INTERVAL_MS)
    .option('--wait-timeout-ms <ms>', 'give up waiting after this long', integerOption('--wait-timeout-ms'), DEFAULT_WAIT_TIMEOUT_MS);
}

const VISIBILITY = 'Exports are visible only to the user who created them.';

export function registerExports(program: Command): void {
  const exports = program.command('exports').description('exported charts and data (management API)');
  const idArg = (command: Command) => command.argument('<id>', 'export id', integerOption('<id>', 1));
  managementOptions(
    exports
      .command('list')
      .description(`list your exports, newest first (one page of 100 unless --all). ${VISIBILITY}`)
      .option('--limit <n>', 'page size', integerOption('--limit', 1))
      .option('--offset <n>', 'skip this many', integerOption('--offset'))
      .option('--all', 'every page'),
  ).action(list);
  const createCommand = exports
    .command('create')
    .description('export a dashboard, an insight or a query context (PostHog renders it before it answers)')
    .option('--dashboard <id>', 'dashboard id (the key also needs dashboard:read)', integerOption('--dashboard', 1))
    .option('--insight <id>', 'insight id (the key also needs insight:read)', integerOption('--insight', 1))
    .option('--context <json>', 'export context as a JSON object; video/mp4, video/webm and image/gif need its session_recording_id')
    .addOption(new Option('--format <media type>', `one of ${EXPORT_FORMAT_NAMES.join(', ')}`).makeOptionMandatory())
    .option('--wait-ms <ms>', 'how long PostHog may take to answer the create request; without an answer, the export it made is looked for', integerOption('--wait-ms', 1), DEFAULT_CREATE_WAIT_MS)
    .option('--wait', 'wait until it is rendered')
    .option('--output <file>', 'save the content to this file (implies --wait)')
    .option('--force', 'replace the output file if it exists')
    .addHelpText('after', '\nScopes: export:write, plus insight:read for --insight or dashboard:read for --dashboard.');
  managementOptions(waitFlags(createCommand)).action(create);
  managementOptions(idArg(exports.command('get').description(`show one of your exports. ${VISIBILITY} A colleague's export id answers 404.`))).action(get);
  const dl = idArg(exports.command('download').description(`save one of your exports' content, waiting while it renders. ${VISIBILITY}`))
    .option('-o, --output <file>', "where to save (default: the export's filename, here)")
    .option('--force', 'replace the file if it exists');
  managementOptions(waitFlags(dl)).action(download);
}
