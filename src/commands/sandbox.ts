/** `migrate sandbox`: the local PostHog-compatible server, to rehearse a migration on loopback. */
import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { integerOption } from '../cli/common-options.js';
import { watchInterrupts } from '../cli/interrupt.js';
import { print, printJson, printUnredacted } from '../cli/output.js';
import { describeFaults, type CaptureFaults } from '../sandbox/capture/capture-faults.js';
import { sandboxPersonalKeys } from '../sandbox/api/management-seed.js';
import { listSandboxProjects, type SandboxProject } from '../sandbox/sandbox-projects.js';
import type { RunningSandbox } from '../sandbox/sandbox-server.js';
import { seededRandom } from '../util/seeded-random.js';

interface SandboxCommandOptions {
  port: number;
  db: string;
  countOnly?: boolean;
  fail500?: number;
  fail503?: number;
  fail429?: number;
  fail429RetryAfter?: number;
  retryAfter?: number;
  drop?: number;
  loseAnswers?: number;
  slow?: number;
  slowMs?: number;
  maxBodyBytes?: number;
  maxEventBytes?: number;
  unknownTokens?: 'refuse' | 'accept-and-drop';
  overQuota?: boolean;
  loseAfterAccept?: number;
  seed?: number;
  json?: boolean;
}

export const DEFAULT_SANDBOX_PORT = 8010;
export const DEFAULT_SANDBOX_DB = './sandbox.db';

function share(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${name} must be a share between 0 and 1 (e.g. 0.2)`);
    return n;
  };
}

function faultsOf(o: SandboxCommandOptions): CaptureFaults {
  return {
    error500: o.fail500,
    error503: o.fail503,
    error429: o.fail429,
    error429RetryAfter: o.fail429RetryAfter,
    retryAfterSeconds: o.retryAfter,
    drop: o.drop,
    loseAnswer: o.loseAnswers,
    slow: o.slow,
    slowMs: o.slowMs,
    unknownTokens: o.unknownTokens,
    overQuota: o.overQuota,
    loseAfterAccept: o.loseAfterAccept,
  };
}

/**
 * The config to paste: one entry per sandbox project, keyed test and prod, with the owner's
 * all-scopes personal key so the management commands work too.
 */
export function configSnippet(url: string, projects: readonly SandboxProject[], personalApiKey?: string): string {
  const entries: Record<string, unknown> = {};
  for (const p of projects) {
    entries[p.role === 'production' ? 'prod' : 'test'] = { role: p.role, host: url, apiKey: p.apiToken, projectId: String(p.id), ...(personalApiKey ? { personalApiKey } : {}) };
  }
  return JSON.stringify({ projects: entries }, null, 2);
}

function printBanner(sandbox: RunningSandbox, db: string, options: SandboxCommandOptions, faults: CaptureFaults): void {
  const projects = listSandboxProjects(sandbox.store);
  const personalKeys = sandboxPersonalKeys(sandbox.store);
  const ownerKey = personalKeys.find((k) => k.label === 'owner-all')?.value;
  if (options.json) {
    // One line a script can read (npm run demo does); the keys are the sandbox's own fake ones.
    printUnredacted(
      JSON.stringify({
        url: sandbox.url,
        port: sandbox.port,
        db,
        projects: projects.map((p) => ({ id: p.id, name: p.name, role: p.role, apiKey: p.apiToken })),
        personalKeys: personalKeys.map((k) => ({ label: k.label, email: k.email, scopes: k.scopes, key: k.value })),
      }),
    );
    return;
  }
  print(`PostHog-compatible sandbox on ${sandbox.url} (store: ${db}${options.countOnly ? ', count-only: events are counted, not stored' : ''})`);
  print('Projects (the keys are this sandbox\'s own, not PostHog keys):');
  for (const p of projects) printUnredacted(`  ${p.id}  ${p.name.padEnd(18)}  ${p.apiToken}`);
  print('Personal API keys (for the management commands):');
  for (const k of personalKeys) printUnredacted(`  ${k.label.padEnd(20)}  ${k.email.padEnd(22)}  ${k.scopes.join(' ').padEnd(40)}  ${k.value}`);
  print('Paste into migrate.config.json:');
  printUnredacted(configSnippet(sandbox.url, projects, ownerKey));
  print(`Faults: ${describeFaults(faults)}`);
  print('Stop with Ctrl-C.');
}

async function run(options: SandboxCommandOptions): Promise<void> {
  const db = options.db === ':memory:' ? ':memory:' : resolve(options.db);
  const faults = faultsOf(options);
  const interrupts = watchInterrupts();
  // Loaded on use, so other commands do not pay for the server's modules at start.
  const { startSandbox } = await import('../sandbox/sandbox-server.js');
  const sandbox = await startSandbox({
    port: options.port,
    dbPath: db,
    capture: {
      faults,
      maxBodyBytes: options.maxBodyBytes,
      maxEventBytes: options.maxEventBytes,
      countOnly: options.countOnly === true,
      random: options.seed === undefined ? undefined : seededRandom(options.seed),
    },
  });
  try {
    printBanner(sandbox, db, options, faults);
    await new Promise<void>((done) => interrupts.signal.addEventListener('abort', () => done(), { once: true }));
  } finally {
    interrupts.dispose();
    await sandbox.close();
  }
  if (options.json) printJson(sandbox.capture.stats);
  else print(`Sandbox stopped: ${sandbox.capture.stats.requests} capture requests, events by project ${JSON.stringify(sandbox.capture.stats.eventsByProject)}.`);
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
      new Option('--unknown-tokens <mode>', 'a token of no project: refuse (401) or accept-and-drop (200, events dropped, as PostHog may)')
        .choices(['refuse', 'accept-and-drop'])
        .default('refuse'),
    )
    .option('--over-quota', 'answer 200 and store nothing, as PostHog does over a billing limit')
    .option('--lose-after-accept <share>', 'share of accepted events lost after the 200 (seeded by --seed)', share('--lose-after-accept'))
    .option('--seed <n>', 'seed the fault and loss draws, to replay a run exactly', integerOption('--seed', 0))
    .option('--json', 'print one JSON line (url, projects and keys) instead of the banner')
    .action(run);
}
