#!/usr/bin/env node
// `npm run bench`: generates (or reuses) a synthetic source in .bench/, measures each step in its
// own process, prints the table and adds the run's section to BENCHMARKS.md. Options: --help.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, STEPS, USAGE } from './lib/bench-args.mjs';
import { evaluate, footnotes, formatTable, headlines, headlineText, insertSection, megabytes, count, runSection, shellQuote } from './lib/bench-report.mjs';
import { exportStep, floorStep, importStep, peerStep, removeStaging, statusStep } from './lib/bench-steps.mjs';
import { rssMethod } from './lib/measure-process.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const parsed = parseBenchArgs(argv);
if ('help' in parsed) {
  console.log(USAGE);
  process.exit(0);
}
if ('error' in parsed) {
  console.error(`bench: ${parsed.error}\n${USAGE}`);
  process.exit(2);
}
const options = parsed.options;
const work = join(root, '.bench');
/** @type {import('./lib/bench-steps.mjs').BenchPaths} */
const paths = {
  root,
  cli: join(root, 'bin', 'migrate.js'),
  work,
  source: join(work, `source-${options.events}.csv`),
  staged: join(work, `staged-${options.events}.db`),
  imported: join(work, `imported-${options.events}.db`),
  config: join(work, 'migrate.config.json'),
};
const show = (/** @type {string} */ file) => relative(process.cwd(), file) || file;

/** Generates the source unless one of this size is there; the rename makes a partial file impossible. */
async function prepareSource() {
  if (existsSync(paths.source)) {
    console.log(`Reusing ${show(paths.source)} (${megabytes(statSync(paths.source).size)}), generated earlier with the same size and seed.`);
    return 'reused';
  }
  const partial = `${paths.source}.partial`;
  console.log(`Generating ${show(paths.source)} (${count(options.events)} events)...`);
  const child = spawn(process.execPath, [join(root, 'bench', 'generate-source.mjs'), partial, String(options.events)], { stdio: 'inherit' });
  const code = await new Promise((done, fail) => child.once('error', fail).once('close', done));
  if (code !== 0) throw new Error(`bench/generate-source.mjs exited with ${code}`);
  renameSync(partial, paths.source);
  return 'generated';
}

function machine() {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${cpu}, ${os.type()} ${os.release()}, Node ${process.version}`;
}

function commit() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown (not a git checkout)';
  // The output file itself does not make the code "changed" (one run's section before another's).
  const exclude = options.out === null ? [] : [`:!${relative(root, resolve(options.out))}`];
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ...exclude], { cwd: root, encoding: 'utf8' });
  const dirty = status.stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? ' with uncommitted changes' : ''}`;
}

/** The command as the user typed it: through npm when npm ran us. */
function command() {
  if (process.env.npm_lifecycle_event === 'bench') return `npm run bench${argv.length > 0 ? ` -- ${shellQuote(argv)}` : ''}`;
  return shellQuote(['node', 'bench/run-bench.mjs', ...argv]);
}

function peerVersion() {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', 'posthog-node', 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

/**
 * @param {string} name
 * @param {string} what
 * @param {() => Promise<T>} run
 * @template T
 */
async function step(name, what, run) {
  const index = STEPS.indexOf(name) + 1;
  process.stdout.write(`${index}. ${what}... `);
  const result = await run().catch((error) => {
    console.log('failed');
    throw error;
  });
  console.log(`${(/** @type {{ wallMs: number }} */ (result).wallMs / 1000).toFixed(2)} s`);
  return result;
}

async function runSteps() {
  const on = (/** @type {string} */ s) => options.steps.includes(s);
  /** @type {import('./lib/bench-report.mjs').StepResults & { import?: { cliEventsPerSec: number } }} */
  const r = {};
  if (on('floor')) r.floor = await step('floor', 'csv-parse floor (columns: true, counting rows)', () => floorStep(paths));
  if (on('export')) r.export = await step('export', 'migrate export-source', () => exportStep(paths, options.events));
  if (on('import')) r.import = await step('import', 'migrate import --max-rate 0 into the count-only sandbox', () => importStep(paths, options.events));
  if (on('peer')) r.peer = await step('peer', `posthog-node ${peerVersion()} (historicalMigration) into the count-only sandbox, ${count(options.peerEvents)} events`, () => peerStep(paths, options.peerEvents));
  if (on('status')) {
    const staging = r.import ? paths.imported : paths.staged;
    const result = await step('status', `migrate status on ${show(staging)}`, () => statusStep(staging, paths));
    r.status = { ...result, stagedEvents: options.events, afterImport: r.import !== undefined };
  }
  return r;
}

/** @param {Awaited<ReturnType<typeof runSteps>>} r @param {string} source */
function notes(r, source) {
  const lines = [
    `Source: ${show(paths.source)}, ${megabytes(statSync(paths.source).size)}, ${source} for this run.`,
    `Peak RSS: ${{ time: 'GNU time %M (the kernel\'s maximum resident set of the process)', proc: 'polling /proc/<pid>/status VmHWM every 20 ms', none: 'not measurable on this system' }[rssMethod()]}.`,
  ];
  if (r.import) lines.push(`import: the CLI's own summary gives ${count(r.import.cliEventsPerSec)} events/s over its delivery alone (Node start-up and opening the staging file excluded); the table uses the process's wall time.`);
  if (r.peer) lines.push(`posthog-node: ${peerVersion()}, its default batching (flushAt 20, maxBatchSize 100), gzip on, one batch in flight (its design); the step includes reading its CSV prefix with csv-parse.`);
  return lines;
}

async function main() {
  mkdirSync(work, { recursive: true });
  console.log(`Benchmark: ${count(options.events)} events, steps ${options.steps.join(', ')}; work dir ${show(work)}.`);
  const source = await prepareSource();
  const created = [];
  if (options.steps.includes('export')) created.push(paths.staged);
  if (options.steps.includes('import')) created.push(paths.imported);
  let r;
  try {
    r = await runSteps();
  } finally {
    if (!options.keep) created.forEach(removeStaging);
    rmSync(paths.config, { force: true });
  }
  const rows = evaluate(r, options.events);
  const h = headlines(r);
  const extra = [...footnotes(rows), ...notes(r, source)];
  console.log(`\n${formatTable(rows)}\n\nHeadline: ${headlineText(h)}\n${extra.join('\n')}`);
  if (options.keep) console.log(`Staging files kept in ${show(work)}.`);
  if (rows.some((row) => row.what === 'counted by sandbox' && row.met !== 'yes')) {
    console.error('bench: the sandbox did not count every event sent; the rates above are not valid.');
    process.exitCode = 1;
  }
  if (options.out === null) return;
  const out = resolve(options.out);
  const section = runSection({ date: new Date().toISOString(), events: options.events, command: command(), machine: machine(), commit: commit(), rows, headlines: h, notes: extra });
  writeFileSync(out, insertSection(existsSync(out) ? readFileSync(out, 'utf8') : null, section));
  console.log(`Wrote this run's section to ${show(out)}.`);
}

main().catch((error) => {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
