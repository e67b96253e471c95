/** `migrate verify --project <name>`: what landed in PostHog, day by day; optionally re-sends exactly what is missing. */
import type { Command } from 'commander';
import { configOption, jsonOption, quietOption, stagingOption } from '../../options/common-options.js';
import { withTerminal } from '../../terminal/terminal-reporter.js';
import { presentUnfinished } from '../import/run-output.js';
import { dayOption, toVerifyInput, waitOption, type VerifyOptions } from './verify-input.js';
import { presentVerify } from './verify-output.js';

async function run(options: VerifyOptions): Promise<void> {
  const input = toVerifyInput(options);
  const json = options.json === true;
  // Loaded on use: the query and delivery stacks would slow every other command's start.
  const { verifyProject } = await import('../../../verify/verify-project.js');
  const { writeVerifyReport } = await import('../../../verify/report/write-report.js');
  const { verifyFailure } = await import('../../../verify/verify-failure.js');
  const result = await withTerminal({ quiet: options.quiet === true || json, interrupts: true }, (reporter, signal) => verifyProject(input, reporter, signal)).catch(
    presentUnfinished(json, { staging: options.staging, config: options.config }),
  );
  const html = options.html === undefined ? undefined : writeVerifyReport(options.html, result);
  presentVerify(result, json, html, options.config);
  const failure = verifyFailure(result, { staging: result.staging, config: options.config });
  if (failure !== undefined) throw failure;
}

export function registerVerify(program: Command): void {
  const command = program
    .command('verify')
    .description('check day by day that what PostHog accepted is in PostHog (distinct uuids, by HogQL); --resend-missing re-sends what is not')
    .requiredOption('--project <name>', 'project name from the config (its apiHost, projectId and personal API key with query:read)')
    .option('--since <day>', 'first UTC day to check, YYYY-MM-DD (default: the first staged day)', dayOption('--since'))
    .option('--until <day>', 'last UTC day to check, YYYY-MM-DD (default: the last staged day)', dayOption('--until'))
    .option('--by-event', 'one row per day and event name')
    .option('--wait <duration>', 'read again every minute until ingestion settles or this time is up, e.g. 10m', waitOption)
    .option('--resend-missing', 'make the delivered events PostHog does not hold pending again and re-send them (same uuids and content)')
    .option('--html <file>', 'also write a self-contained HTML report (chart of the days, rejects, dead letters)');
  stagingOption(command);
  configOption(command);
  quietOption(command);
  jsonOption(command);
  command.action(run);
}
