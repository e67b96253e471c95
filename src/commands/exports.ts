/**
 * `migrate exports list|create|get|download`: exports of charts and data from the project,
 * rendered by the server; `create --wait` and `download` wait for the rendering, within a bound.
 */
import { Option, type Command } from 'commander';
import { integerOption } from '../cli/common-options.js';
import { table } from '../cli/format.js';
import { exportRequest, exportsPaging, type ExportCreateOptions } from '../cli/management-args.js';
import { managementOptions, withManagementApi, type ManagementOptions } from '../cli/management-options.js';
import { print, printJson, warn } from '../cli/output.js';
import { refuseExisting, saveFile, serverFileName } from '../cli/save-file.js';
import { EXPORT_FORMAT_NAMES } from '../management/export-formats.js';
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_WAIT_TIMEOUT_MS, downloadWhenReady, waitForExport, type WaitOptions } from '../management/export-wait.js';
import type { ManagementApi } from '../management/management-api.js';
import type { Export } from '../management/management-schemas.js';
import { systemClock } from '../util/clock.js';

interface WaitFlags {
  pollIntervalMs: number;
  waitTimeoutMs: number;
}

function waitOptions(flags: WaitFlags): WaitOptions {
  return { pollIntervalMs: flags.pollIntervalMs, timeoutMs: flags.waitTimeoutMs, clock: systemClock };
}

function status(e: Export): string {
  if (e.exception) return 'failed';
  return e.has_content ? 'ready' : 'rendering';
}

function source(e: Export): string {
  if (e.dashboard != null) return `dashboard ${e.dashboard}`;
  if (e.insight != null) return `insight ${e.insight}`;
  return 'context';
}

function printExport(e: Export): void {
  const rows = [
    ['id', String(e.id)],
    ['format', e.export_format],
    ['source', source(e)],
    ['status', status(e)],
    ['filename', e.filename],
    ['created', e.created_at],
    ['expires', e.expires_after ?? ''],
  ];
  if (e.exception) rows.push(['error', e.exception]);
  print(table(rows));
}

function printExportList(exports: Export[]): void {
  if (exports.length === 0) return print('No exports yet: create one with `migrate exports create`.');
  print(table([['id', 'format', 'source', 'status', 'created', 'filename'], ...exports.map((e) => [String(e.id), e.export_format, source(e), status(e), e.created_at, e.filename])]));
}

async function list(options: ManagementOptions & { limit?: number; offset?: number; all?: boolean }): Promise<void> {
  const paging = exportsPaging(options);
  await withManagementApi(options, async (api) => {
    if (paging.all) {
      const all = await api.listAllExports();
      return options.json ? printJson(all) : printExportList(all);
    }
    const page = await api.listExports({ limit: paging.limit, offset: paging.offset });
    if (options.json) return printJson(page);
    printExportList(page.results);
    const offset = paging.offset ?? 0;
    const end = offset + page.results.length;
    if (page.results.length > 0) print(`\nExports ${offset + 1}-${end} of ${page.count}.${page.next ? ` More: --offset ${end}, or --all.` : ''}`);
  });
}

async function download(api: ManagementApi, id: number, file: string | undefined, force: boolean, flags: WaitFlags): Promise<{ file: string; bytes: number; contentType: string }> {
  const content = await downloadWhenReady(api, id, waitOptions(flags));
  const name = file ?? serverFileName(content.filename ?? (await api.getExport(id)).filename);
  return { file: saveFile(name, content.bytes, force), bytes: content.bytes.length, contentType: content.contentType };
}

type CreateFlags = ManagementOptions & ExportCreateOptions & WaitFlags & { wait?: boolean; output?: string; force?: boolean };

async function create(options: CreateFlags): Promise<void> {
  const request = exportRequest(options);
  if (options.output !== undefined) refuseExisting(options.output, options.force ?? false);
  await withManagementApi(options, async (api) => {
    let created = await api.createExport(request);
    if (!options.json) print(`Export ${created.id} created (${created.export_format}).`);
    if (options.wait || options.output !== undefined) {
      created = await waitForExport(api, created.id, waitOptions(options));
      if (options.output !== undefined) {
        const saved = await download(api, created.id, options.output, options.force ?? false, options);
        if (!options.json) print(`Saved ${saved.file} (${saved.bytes} bytes).`);
      }
    }
    if (options.json) printJson(created);
    else printExport(created);
  });
}

async function get(id: number, options: ManagementOptions): Promise<void> {
  await withManagementApi(options, async (api) => {
    const found = await api.getExport(id);
    if (options.json) printJson(found);
    else printExport(found);
  });
}

async function downloadCommand(id: number, options: ManagementOptions & WaitFlags & { output?: string; force?: boolean }): Promise<void> {
  await withManagementApi(options, async (api) => {
    if (!options.json) warn(`Fetching export ${id}; waiting up to ${Math.round(options.waitTimeoutMs / 1000)} s if it is still rendering.`);
    const saved = await download(api, id, options.output, options.force ?? false, options);
    if (options.json) printJson({ id, file: saved.file, bytes: saved.bytes, content_type: saved.contentType });
    else print(`Saved ${saved.file} (${saved.bytes} bytes, ${saved.contentType}).`);
  });
}

function waitFlags(command: Command): Command {
  return command
    .option('--poll-interval-ms <ms>', 'pause between checks while the export renders', integerOption('--poll-interval-ms'), DEFAULT_POLL_INTERVAL_MS)
    .option('--wait-timeout-ms <ms>', 'give up waiting after this long', integerOption('--wait-timeout-ms'), DEFAULT_WAIT_TIMEOUT_MS);
}

export function registerExports(program: Command): void {
  const exports = program.command('exports').description('exported charts and data (management API)');
  const idArg = (command: Command) => command.argument('<id>', 'export id', integerOption('<id>', 1));
  managementOptions(
    exports
      .command('list')
      .description('list exports, newest first (one page of 100 unless --all)')
      .option('--limit <n>', 'page size', integerOption('--limit', 1))
      .option('--offset <n>', 'skip this many', integerOption('--offset'))
      .option('--all', 'every page'),
  ).action(list);
  const createCommand = exports
    .command('create')
    .description('export a dashboard, an insight or a query context')
    .option('--dashboard <id>', 'dashboard id', integerOption('--dashboard', 1))
    .option('--insight <id>', 'insight id', integerOption('--insight', 1))
    .option('--context <json>', 'export context as a JSON object')
    .addOption(new Option('--format <media type>', `one of ${EXPORT_FORMAT_NAMES.join(', ')}`).makeOptionMandatory())
    .option('--wait', 'wait until it is rendered')
    .option('--output <file>', 'save the content to this file (implies --wait)')
    .option('--force', 'replace the output file if it exists');
  managementOptions(waitFlags(createCommand)).action(create);
  managementOptions(idArg(exports.command('get').description('show one export'))).action(get);
  const dl = idArg(exports.command('download').description("save an export's content, waiting while it renders"))
    .option('-o, --output <file>', "where to save (default: the export's filename, here)")
    .option('--force', 'replace the file if it exists');
  managementOptions(waitFlags(dl)).action(downloadCommand);
}
