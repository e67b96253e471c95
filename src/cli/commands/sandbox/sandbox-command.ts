/** `migrate sandbox`: the local PostHog-compatible server, to rehearse a migration on loopback. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { integerOption } from '../../options/common-options.js';
import { watchInterrupts } from '../../terminal/interrupts.js';
import { faultsOf, sandboxDbPath, toSandboxOptions, type SandboxCommandOptions } from './sandbox-input.js';
import { printBanner, printStopped } from './sandbox-output.js';

export const DEFAULT_SANDBOX_PORT = 8010;
export const DEFAULT_SANDBOX_DB = './sandbox.db';

function share(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${name} must be a share between 0 and 1 (e.g. 0.2)`);
    return n;
  };
}

/** Serves until Ctrl-C or SIGTERM, then closes the server and prints what it received. */
async function run(options: SandboxCommandOptions): Promise<void> {
  const interrupts = watchInterrupts();
  // Loaded on use, so other commands do not pay for the server's modules at start.
  const { startSandbox } = await import('../../../sandbox/index.js');
  const sandbox = await startSandbox(toSandboxOptions(options));
  try {
    printBanner(sandbox, sandboxDbPath(options.db), options, faultsOf(options));
    await new Promise<void>((done) => interrupts.signal.addEventListener('abort', () => done(), { once: true }));
  } finally {
    interrupts.dispose();
    await sandbox.close();
  }
  printStopped(sandbox.capture.stats, options.json === true);
}

export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run a local PostHog-compatible server (capture endpoints) with a test and a production project')
    .option('--port <n>', 'TCP port on 127.0.0.1; 0 picks a free one', integerOption('--port', 0), DEFAULT_SANDBOX_PORT)
    .option('--db <file>', "the sandbox's SQLite store (':memory:' for a throwaway one)", DEFAULT_SANDBOX_DB)
    .option('--count-only', 'validate and count events without storing them (benchmarks)')
    .option('--fail-500 <share>', 'share of requests answered 500', share('--fail-500'))
    .option('--fail-503 <share>', 'share of requests answered 503', share('--fail-503'))
    .option('--fail-429 <share>', 'share of requests answered 429 without Retry-After', share('--fail-429'))
    .option('--fail-429-retry-after <share>', 'share of requests answered 429 with Retry-After', share('--fail-429-retry-after'))
    .option('--retry-after <seconds>', 'the Retry-After value (default 1)', integerOption('--retry-after', 0))
    .option('--drop <share>', 'share of connections dropped before storing', share('--drop'))
    .option('--lose-answers <share>', 'share of requests stored and then dropped (the answer is lost)', share('--lose-answers'))
    .option('--slow <share>', 'share of requests answered late', share('--slow'))
    .option('--slow-ms <ms>', 'delay of a late answer (default 2000)', integerOption('--slow-ms', 0))
    .option('--max-body-bytes <n>', 'body limit after decompression (default 100 MiB, as PostHog; 20 MiB as received)', integerOption('--max-body-bytes', 1))
    .option('--max-event-bytes <n>', 'limit on one event; a bigger one gets 413 after the events before it were stored (default 1000000)', integerOption('--max-event-bytes', 1))
    .addOption(
      new Option('--unknown-tokens <mode>', 'a token of no project: refuse (401) or accept-and-drop (200, events dropped, as PostHog may)').choices(['refuse', 'accept-and-drop']).default('refuse'),
    )
    .option('--over-quota', 'answer 200 and store nothing, as PostHog does over a billing limit')
    .option('--rate-limit <events/s>', 'accept at most this many events in any one second, 429 past it (change it live: POST /_sandbox/rate-limit?events_per_sec=n)', integerOption('--rate-limit', 0))
    .option('--lose-after-accept <share>', 'share of accepted events lost after the 200 (seeded by --seed)', share('--lose-after-accept'))
    .option('--seed <n>', 'seed the fault and loss draws, to replay a run exactly', integerOption('--seed', 0))
    .option('--json', 'print one JSON line (url, projects and keys) instead of the banner')
    .option('--no-explicit-members', 'answer the explicit_members API with 404, as PostHog Cloud does (project access is then access control only)')
    .option('--export-render-ms <ms>', 'how long rendering one export takes while its create request waits (default 0)', integerOption('--export-render-ms', 0))
    .option('--export-content-404-until-ready', "answer an unrendered export's content with 404, as older self-hosted PostHog does, instead of 425")
    .option('--query-max-rows <n>', "the query API's row cap of one answer (default 50000; 10000 as older self-hosted PostHog)", integerOption('--query-max-rows', 1))
    .option(
      '--query-max-scanned-rows <n>',
      "rows a query may read before it hits the execution time limit and fails as ClickHouse's timeout, HTTP 504 (default: no limit)",
      integerOption('--query-max-scanned-rows', 1),
    )
    .option('--query-max-estimated-rows <n>', "rows above which ClickHouse's estimate refuses a query before running it, HTTP 512 (default: no limit)", integerOption('--query-max-estimated-rows', 1))
    .action(run);
}
